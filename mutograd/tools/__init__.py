"""Developer tools (documentation generators)."""
