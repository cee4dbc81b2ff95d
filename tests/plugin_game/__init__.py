"""High Card: a small third-party-style game built only on ``cahoots_envs.core``.

It is registered through the package's public API inside the test session, so that the whole
shared test suite checks the plugin route too. ``spec.SPEC`` is its ``GameSpec``.
"""
