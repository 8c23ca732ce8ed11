"""Feeds in, live PDN out: the relay state, its HTTP server, serial inputs, the hall follower and
pusher, the live page."""
