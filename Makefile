VENV ?= .venv
PY := $(VENV)/bin/python
# Minimum coverage of the pure core (rules, moves, lobby, settings, state, standings,
# views), in percent.
COV_FAIL_UNDER ?= 95

.PHONY: run test clean

# The marker is rebuilt whenever the dependencies in pyproject.toml change.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(PY) app.py

# Fails when a test fails, when no test is collected (pytest exit 5),
# or when coverage of the pure core is below COV_FAIL_UNDER.
test: $(VENV)/.installed
	$(PY) -m pytest --cov=auction.rules --cov=auction.moves --cov=auction.lobby \
		--cov=auction.settings --cov=auction.state --cov=auction.standings \
		--cov=auction.views --cov=auction.suspense --cov-branch \
		--cov-report=term-missing --cov-fail-under=$(COV_FAIL_UNDER)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .coverage test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
