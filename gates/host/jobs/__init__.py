"""Background jobs: the runner, the durable store, the checks a job passes, placeholders, the acting
step's slot, time on the host's clock, and the handlers of the assistant's job tools.

Imports every room below it: a step is a call (`calls`) of a tool (`tools`) under the player's
settings (`policy`).
"""
