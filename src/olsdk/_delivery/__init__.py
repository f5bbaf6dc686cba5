"""Delivery: the client, its durable spool and relay, the transports and the settings they read."""
