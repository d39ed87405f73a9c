"""mutograd/data/: datasets and loaders (recorded fixtures are in tests/references/)."""
