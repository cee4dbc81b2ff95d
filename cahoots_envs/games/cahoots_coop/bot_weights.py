"""The Cahoots (cooperative) heuristic bot's weights, read by the bot (``bot.py``), its compiled
twin (``bot_batched.py``) and the state-based bot of search rollouts (``search.py``'s
``FastBot``): one place, so the three rate every play alike."""

from __future__ import annotations

COMPLETE_NOW = 100.0  # per goal completed by the play itself
REACH_SCALE = 1.5  # cards of weight 1.5 make a goal "probably reachable"
STRAND = 200.0  # an estimated certain loss of the next player's turn
OWN_HAND = 0.5  # your own cards: you play again only after the others
PROTECT = 3.0  # covering a pile a teammate's latest signal names, with a play completing nothing
