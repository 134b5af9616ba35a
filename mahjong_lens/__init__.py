"""mahjong-lens: the command line that ties rules, vision, datasets, training and the web app together."""
__version__ = "0.1.0"
