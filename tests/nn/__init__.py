"""mutograd/nn/: layers, losses, modules and their functional forms."""
