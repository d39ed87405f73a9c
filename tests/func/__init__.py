"""mutograd/func/: the function transforms and vmap."""
