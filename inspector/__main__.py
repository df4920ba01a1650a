"""``python -m inspector``: the same as the ``context-inspector`` command."""

from inspector.cli.main import main

raise SystemExit(main())
