from tests.agents.conftest import api_key_env, model_server  # noqa: F401  (shared fixtures)
