__version__: str

def main(argv: list[str]) -> int:
    """Runs the ``proflens`` program with ``argv`` (its name first); returns the exit code."""

def run(argv: list[str]) -> tuple[int, bytes, str | None]:
    """Runs ``argv``: the exit code, standard output, the failure's message or None."""
