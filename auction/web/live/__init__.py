"""The live parts of a room: its event streams, and the hold socket whose frames date a bid."""
