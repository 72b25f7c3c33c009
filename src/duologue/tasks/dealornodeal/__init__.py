"""Deal or No Deal (Lewis et al. 2017): split books, hats and balls, each side with its own values."""
