"""``python -m proflens``: the ``proflens`` command."""

from ._cli import main

main()
