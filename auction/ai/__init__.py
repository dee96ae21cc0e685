"""The AI players: each decides a round from its own player's view, as a person would.

bots is the face (round_plans, bot_actions, the difficulties and styles);
simple, hard and the models beside them (seat, rivals, known, people, price)
are its players. Pure like the game, which is the only package it imports; an
AI draws from a ``random.Random`` it is handed, never from the clock. mypy
checks it strictly.
"""
