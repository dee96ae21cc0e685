"""The door: who is asking, from where, and how much of the worker they may take.

Identity (a signed device token), the limits per device and per address, the
trusted proxies and hosts, and the bounds on a request's body.
"""
