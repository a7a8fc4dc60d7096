# Development / CI entry points for the baremetal.lifecycle collection.
#
#   make venv     create .work/venv (Python >= 3.11) with requirements-test.txt
#   make install  build the collection and install it into .work/collections
#   make demo     run playbooks/demo.yml against the embedded Ironic in .work/ironic
#                 (its API on 127.0.0.1:6385; another port with, for example, make demo IRONIC_PORT=6390), with what a
#                 user installs: ansible-core and requirements.txt in .work/demo-venv, Ironic in .work/ironic-venv
#                 (both installed at the same time, once); no development tool
#   make test     ansible-test sanity, ansible-lint, the publishing checks, Molecule and pytest (tests/run.sh); pytest
#                 runs on two pytest-xdist workers, and the stages that do not need the whole machine run two at a time
#   make test-matrix  the compatibility edges (tests/matrix.sh): the unit and smoke tests against the oldest and the
#                 newest supported ansible-core (tests/core/run.sh $(CORE_OLDEST), tests/core/run.sh $(CORE_NEWEST)) and
#                 the smoke suite against the oldest supported Ironic release
#   make test-compat  the smoke suite against every supported Ironic release, each installed from PyPI in its own
#                 virtualenv (under .work/ironic-compat, or IRONIC_COMPAT_VENVS); writes the table into
#                 docs/compatibility.md (tests/compat.sh); then make test-mariadb
#   make test-mariadb  the tests marked mariadb (pytest -m mariadb): Ironic split on the system's MariaDB server, run
#                 by the role; needs the system package mariadb-server (apt-get install mariadb-server), and fails
#                 saying so without it
#   make test-core  the ansible-core matrix: for every supported minor release (CORE_MINORS), in its own virtualenv
#                 .work/core-MINOR, ansible-test sanity, the unit tests and the smoke tests; prints a table of the results
#   make bench    every ratio against a raw REST floor measured in the same run, in one table (bench/bench_all.py;
#                 not part of the tests; the other bench/*.py scripts measure one thing in detail)
#   make docs     regenerate the generated docs: the state graph (text and SVG) from the engine's table, the layers
#                 of plugins/module_utils in docs/engine.md from the code, baremetal_node's record options from
#                 node/record_fields.py,
#                 the roles' variable tables from their argument specs, the docsite pages from docs/*.md
#   make release  cut the release named by galaxy.yml's version (bump it first): build and install the collection,
#                 run galaxy-importer on the tarball and antsibull-docs lint on the installed collection, turn
#                 changelogs/fragments/ into that release of changelogs/changelog.yaml and CHANGELOG.md
#                 (antsibull-changelog release; RELEASE_DATE=YYYY-MM-DD to date it otherwise than today), check the
#                 release notes, and build again the tarball to publish, with them, in .work/build/
#   make stop     stop the demo Ironic (.work/ironic), if running, and say which endpoint it served
#   make clean    stop the demo Ironic and remove every generated file

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

PYTHON ?= python3
WORK := $(CURDIR)/.work
VENV := $(WORK)/venv
VENV_STAMP := $(VENV)/.requirements.stamp
# The demo's virtualenv: ansible-core (the release requirements-test.txt names) and requirements.txt, nothing else.
DEMO_VENV := $(WORK)/demo-venv
DEMO_STAMP := $(DEMO_VENV)/.requirements.stamp
BUILD_DIR := $(WORK)/build
COLLECTIONS_DIR := $(WORK)/collections

# Environment shared by demo and tests: the venv's tools first on PATH, the
# repository's ansible.cfg (collections_path = ./.work/collections), and the
# clouds.yaml that the embedded Ironic role writes and the modules read.
export PATH := $(VENV)/bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export OS_CLIENT_CONFIG_FILE := $(WORK)/clouds.yaml
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Role variables (passed as extra vars, the only way they are set): the demo's
# Ironic lives in .work/ironic, its virtualenv in .work/ironic-venv (shared
# with the tests, installed once), its clouds.yaml entry in .work/clouds.yaml.
# IRONIC_PORT is the demo Ironic's API port (on 127.0.0.1).
IRONIC_PORT ?= 6385
IRONIC_DIR := $(WORK)/ironic
IRONIC_VENV := $(WORK)/ironic-venv
IRONIC_VARS := -e ironic_standalone_base_dir=$(IRONIC_DIR) \
	-e ironic_standalone_venv=$(IRONIC_VENV) \
	-e ironic_standalone_clouds_yaml=$(WORK)/clouds.yaml

# The ansible-core releases the collection supports (meta/runtime.yml: requires_ansible); 2.20 and later need
# Python 3.12 or newer on the controller (tests/core/venv.sh finds one).
CORE_MINORS := 2.16 2.17 2.18 2.19 2.20 2.21
CORE_OLDEST := $(firstword $(CORE_MINORS))
CORE_NEWEST := $(lastword $(CORE_MINORS))

.PHONY: venv install demo test test-matrix test-compat test-mariadb test-core bench docs release stop clean

CHECK_PYTHON := $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	echo "error: Python >= 3.11 is required; '$(PYTHON)' is $$($(PYTHON) -V 2>&1). Use 'make PYTHON=/path/to/python3.11'." >&2; \
	exit 1; }

venv: $(VENV_STAMP)

$(VENV_STAMP): requirements.txt requirements-test.txt
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -r requirements-test.txt
	touch $@

$(DEMO_STAMP): requirements.txt requirements-test.txt
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet "$$(grep -E '^ansible-core' requirements-test.txt)" -r requirements.txt
	touch $@

# Ironic's virtualenv, shared with the tests. The role ironic_standalone installs the same package when bin/ironic is
# missing (roles/ironic_standalone/tasks/started.yml); made here, it is installed while the demo's virtualenv is.
# pip compiles every module to its .pyc as it installs (its default): Python does not write them when Ironic starts
# wherever PYTHONDONTWRITEBYTECODE is set (as it is on the CI machine), and an Ironic started from sources compiles
# about 6,000 files each time: 11-12 s of CPU against 3.5 s (ironic, ironic-api, each ironic-conductor, ironic-dbsync;
# a run of the tests starts about seventy).
$(IRONIC_VENV)/bin/ironic:
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv $(IRONIC_VENV)
	$(IRONIC_VENV)/bin/python -m pip install --quiet ironic

# The collection built and installed into .work/collections by the ansible-galaxy of the virtualenv $(1).
define install_collection
	rm -rf $(BUILD_DIR)
	$(1)/bin/ansible-galaxy collection build --force --output-path $(BUILD_DIR) .
	$(1)/bin/ansible-galaxy collection install --force -p $(COLLECTIONS_DIR) $(BUILD_DIR)/baremetal-lifecycle-*.tar.gz
endef

# Always rebuilt: building and installing takes a couple of seconds.
install: venv
	$(call install_collection,$(VENV))

# At its end the playbook says where its clouds.yaml is and prints two commands to try next: an ad-hoc read of the
# nodes, and the fleet report.
demo:
	$(MAKE) --no-print-directory -j2 $(DEMO_STAMP) $(IRONIC_VENV)/bin/ironic
	$(call install_collection,$(DEMO_VENV))
	PATH=$(DEMO_VENV)/bin:$$PATH ansible-playbook playbooks/demo.yml $(IRONIC_VARS) -e ironic_standalone_port=$(IRONIC_PORT)

# Ironic's virtualenv is made while the test tools' is (two pip runs at a time), not by the first integration test's
# Ironic, which held both pytest workers while the role installed it (about 5 minutes of a fresh clone's CI run).
test:
	$(MAKE) --no-print-directory -j2 $(VENV_STAMP) $(IRONIC_VENV)/bin/ironic
	$(call install_collection,$(VENV))
	bash tests/run.sh

test-matrix: venv install
	CORE_OLDEST=$(CORE_OLDEST) CORE_NEWEST=$(CORE_NEWEST) bash tests/matrix.sh

test-core: venv install
	bash tests/core/run.sh --sanity $(CORE_MINORS)

MARIADB_TESTS := python -m pytest tests/integration -m mariadb -p no:cacheprovider -q

# Both run, whatever the first one's result; the target fails if either failed.
test-compat: venv install
	status=0; bash tests/compat.sh --write-table || status=1; $(MARIADB_TESTS) || status=1; exit $$status

test-mariadb: venv install
	$(MARIADB_TESTS)

bench: venv
	python bench/bench_all.py

docs: venv install
	PYTHONPATH=$(COLLECTIONS_DIR) python docs/generate_state_graph.py
	PYTHONPATH=$(COLLECTIONS_DIR) python docs/generate_state_graph_svg.py
	python docs/generate_layers.py
	PYTHONPATH=$(COLLECTIONS_DIR) python docs/generate_record_options.py
	python docs/generate_role_readmes.py
	python docs/generate_docsite.py

# A release in one command. The checks that read the code run first, so that nothing is released when one fails;
# then antsibull-changelog moves the fragments into the release (and deletes them) and the tarball is built again
# so that it carries the release notes. Galaxy shows import warnings to every visitor: any WARNING or ERROR line
# of galaxy-importer fails the release, as in tests/run.sh. Commit the result and tag it with the version.
RELEASE_DATE ?=
COLLECTION_DIR := $(COLLECTIONS_DIR)/ansible_collections/baremetal/lifecycle

release: venv
	$(call install_collection,$(VENV))
	cd $(BUILD_DIR) && GALAXY_IMPORTER_CONFIG=$(CURDIR)/tests/publish/galaxy-importer.cfg \
		python -m galaxy_importer.main baremetal-lifecycle-*.tar.gz >import.log 2>&1 || { cat import.log; exit 1; }
	@if grep -E '^(WARNING|ERROR)' $(BUILD_DIR)/import.log; then \
		echo "make release: galaxy-importer warned or failed (the whole log is $(BUILD_DIR)/import.log)" >&2; exit 1; fi
	antsibull-docs lint-collection-docs --plugin-docs $(COLLECTION_DIR)
	antsibull-changelog lint
	@# antsibull-changelog renders fragments as RST: Ansible markup such as O(...) or C(...) would show literally.
	@if grep -nE '(^|[^[:alnum:]_])(RV|[OCVMPEIBUL])\(' changelogs/fragments/*.y*ml 2>/dev/null; then \
		echo "make release: write \`\`...\`\` instead of Ansible markup in the fragments above" >&2; exit 1; fi
	antsibull-changelog release $(if $(RELEASE_DATE),--date $(RELEASE_DATE))
	rm -f changelogs/.plugin-cache.yaml
	antsibull-changelog lint-changelog-yaml changelogs/changelog.yaml
	@# CHANGELOG.md is what antsibull-changelog generate makes of changelogs/ and shows no Ansible markup literally,
	@# and galaxy.yml's version is the newest release, every plugin's version_added the release that lists it.
	copy="$$(mktemp -d)" && cp -r galaxy.yml changelogs CHANGELOG.md "$$copy/" \
		&& (cd "$$copy" && antsibull-changelog generate) && diff -u CHANGELOG.md "$$copy/CHANGELOG.md"; \
		status=$$?; rm -rf "$$copy"; exit $$status
	python -m pytest -q -p no:cacheprovider tests/unit/test_release.py
	rm -rf $(BUILD_DIR)
	ansible-galaxy collection build --force --output-path $(BUILD_DIR) .
	@echo "make release: $$(ls $(BUILD_DIR)/baremetal-lifecycle-*.tar.gz) is ready; commit changelogs/, CHANGELOG.md" \
		"and galaxy.yml, and tag the commit with the version."

# The endpoint is read from the configuration the running Ironic was started with, not from IRONIC_PORT: make stop
# stops whatever `make demo` started, on any port, and says where it was, with the ansible-playbook of the demo's
# virtualenv or, without it, of the development one.
STOP_PLAYBOOK = $(firstword $(wildcard $(DEMO_VENV)/bin/ansible-playbook $(VENV)/bin/ansible-playbook))

stop:
	@if [ ! -f $(IRONIC_DIR)/ironic.pid ] || [ -z "$(STOP_PLAYBOOK)" ]; then \
		echo "make stop: no demo Ironic to stop (no $(IRONIC_DIR)/ironic.pid)."; \
		exit 0; \
	fi; \
	read -r host port < <($(PYTHON) -c 'import configparser, sys; c = configparser.ConfigParser(interpolation=None); c.read(sys.argv[1]); print(c["api"]["host_ip"], c["api"]["port"])' $(IRONIC_DIR)/ironic.conf); \
	endpoint="http://$$host:$$port"; \
	[[ $$host == *:* ]] && endpoint="http://[$$host]:$$port"; \
	if kill -0 -- "-$$(tr -dc 0-9 < $(IRONIC_DIR)/ironic.pid)" 2>/dev/null; then was=running; else was=gone; fi; \
	$(STOP_PLAYBOOK) playbooks/ironic_stop.yml $(IRONIC_VARS) -e ironic_standalone_host=$$host \
		-e ironic_standalone_port=$$port; \
	if [ $$was = running ]; then echo "make stop: stopped the demo Ironic at $$endpoint."; \
	else echo "make stop: the demo Ironic at $$endpoint was not running; removed its stale pid file."; fi

clean: stop
	rm -rf $(WORK) tests/output .pytest_cache .hypothesis .ansible
