"""The guides' examples run, and the generated pages and stub are current."""
