pools
