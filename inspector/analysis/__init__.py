"""What the views show, computed once, from a session counted once.

One small module per figure, so a new figure is a new module:

- :mod:`.session`: :class:`~.session.Analysis` (session, view, token table) and ``analyze``;
- :mod:`.planning`: ``plan`` (a strategies Plan plus the providers' verdict: ``CheckedPlan``);
- :mod:`.context`: the input tokens a call is sent (every recorded call, the next call) and what
  the file recorded for it;
- :mod:`.replay`: every model call with and without a pipeline;
- :mod:`.compare`: pipelines side by side;
- :mod:`.calibrate`: recorded usage against the estimate, and the ``--calibrate`` factor;
- :mod:`.budget`: the budget a viewer starts with;
- :mod:`.breakdown`: tokens by unit kind and by tool, the largest messages, flag counts.

The public functions in :mod:`inspector` wrap these; views (``cli``, ``tui``) call them and
compute no figure of their own. Depends on providers, strategies, tokens, units and the model.
"""
