"""The tests, one package per concern mirroring mutograd/ (docs/testing.md, "Layout"); shared
helpers at this level, imported as ``tests.helpers``, ``tests.op_db``, ..."""
