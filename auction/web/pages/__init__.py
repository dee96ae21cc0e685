"""What a browser sees: the pages, the forms they post, and the words and drawings on them.

Every byte of a room a page shows is rendered from that device's view (render.py).
"""
