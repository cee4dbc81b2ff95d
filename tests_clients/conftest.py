"""The clients' examples call SB3's ``learn()`` with no logger of their own, as a user would:
the main suite's fixture keeps SB3's logger folder under pytest's temporary folders here too."""

from tests.conftest import library_folders_under_pytests_temp  # noqa: F401 (an autouse fixture)
