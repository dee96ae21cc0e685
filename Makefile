VENV ?= .venv
PY := $(VENV)/bin/python
# Minimum coverage of the pure core (rules, transitions, moves, lobby, settings, state,
# standings, views, suspense), in percent.
COV_FAIL_UNDER ?= 95

.PHONY: run test check clean messages

# The marker is rebuilt whenever the dependencies in pyproject.toml change.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(PY) app.py

COV := --cov=auction.game.rules --cov=auction.game.moves --cov=auction.game.lobby \
	--cov=auction.game.settings --cov=auction.game.state --cov=auction.game.standings \
	--cov=auction.game.views --cov=auction.game.suspense --cov=auction.game.transitions \
	--cov-branch

# The type check (pyproject.toml: strict on the game and the AI), then every test:
# first all but the timing-sensitive ones, three at a time (pytest-xdist, a file
# per worker: most of a test's time is waiting on servers and clocks), then
# those alone (tests/conftest.py: TIMING), so nothing else's load moves their
# measurements. Fails when a test fails, when either run collects no test (pytest
# exit 5), or when coverage of the pure core is below COV_FAIL_UNDER.
test: $(VENV)/.installed
	$(PY) -m mypy
	$(PY) -m pytest -n 3 --dist loadfile -m "not timing" $(COV) --cov-report= \
		--cov-fail-under=0
	$(PY) -m pytest -m timing $(COV) --cov-append --cov-report=term-missing \
		--cov-fail-under=$(COV_FAIL_UNDER)

# The edit-test loop: the type check, then the pure core and the requests answered
# in-process, two at a time, with the pure core's coverage (about half a minute).
# `make test` runs everything.
CHECK := tests/game tests/test_purity.py tests/test_config.py tests/ai/test_bots.py tests/web/test_catalogs.py \
	$(addprefix tests/web/pages/,test_render.py test_smoke.py test_requests.py test_results.py \
	  test_words_ko.py test_pages_ko.py test_podium_css.py test_served_static.py) \
	tests/web/door/test_numbers.py tests/server/test_hot_path.py
check: $(VENV)/.installed
	$(PY) -m mypy
	$(PY) -m pytest -n 2 $(COV) --cov-report=term-missing:skip-covered \
		--cov-fail-under=$(COV_FAIL_UNDER) $(CHECK)

# The catalogs (docs/i18n.md): every word the code and templates mark, gathered into
# translations/messages.pot, merged into each language's .po (a translator fills in
# what is new), and compiled to the .mo the app reads. The .mo files are committed,
# so a fresh clone runs without this step; a test fails if any is stale or incomplete.
BABEL := $(VENV)/bin/pybabel
messages: $(VENV)/.installed
	$(BABEL) extract -F babel.cfg -k RuleError -k NotAllowed -k WrongPhase -k RoomFull -k RoomLocked \
		-k NameTaken -k InvalidSettings \
		--no-location --sort-output --omit-header -o translations/messages.pot .
	$(BABEL) update -i translations/messages.pot -d translations --no-fuzzy-matching \
		--ignore-obsolete
	$(BABEL) compile -d translations --statistics

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .coverage test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
