"""The one base of the project's errors: what the command lines catch and report in a line."""


class RecorderError(Exception):
    """Something the user must fix; its message names the file, the cause and the fix.

    Every error the project raises for the user derives from it, so a command line
    catches this one class and lets any other exception (a bug) show its traceback.
    """


class PageError(RecorderError):
    """A page or directive the build cannot render; the message names the page and the fix."""
