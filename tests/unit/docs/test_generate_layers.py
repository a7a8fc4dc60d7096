# -*- coding: utf-8 -*-
"""The layers section of docs/engine.md is generated from the code and must not drift from it; the house's size
limits hold for every file and class of plugins/module_utils."""

import os

from docs_scripts import ROOT, load

GENERATOR = load('generate_layers')


def test_the_layers_section_is_generated_from_the_code():
    with open(GENERATOR.ENGINE_DOC) as handle:
        committed = handle.read()
    assert committed == GENERATOR.rewrite(committed, GENERATOR.render_section()), 'run: python3 docs/generate_layers.py'


def test_every_layer_package_is_in_the_contract_and_every_file_in_a_layer():
    module_utils = os.path.join(ROOT, 'plugins', 'module_utils')
    packages = sorted(name for name in os.listdir(module_utils) if os.path.isdir(os.path.join(module_utils, name))
                      and name != '__pycache__')
    assert packages == sorted(GENERATOR.layers())
    assert [name for name in os.listdir(module_utils) if name.endswith('.py') and name != '__init__.py'] == []


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    source = '"""Module.\n\nMore."""\n\n# why\nX = 1\n\n\ndef f():\n    """Doc."""\n    return (X +\n            1)\n'
    assert GENERATOR.code_lines(source) == 4


# The house's size limits (issue 28): a file says one thing, a class does one job.
FILE_LIMIT = 300
CLASS_LIMIT = 200


def test_no_file_of_module_utils_or_the_plugins_outgrows_the_house():
    """Lines of code (docstrings, comments and blank lines left out) per file; a module's documentation is data."""
    files = GENERATOR.read_files()
    over = sorted('%s.py: %d' % (name, GENERATOR.code_lines(source)) for name, (source, _tree) in files.items()
                  if not name.startswith('modules/') and GENERATOR.code_lines(source) > FILE_LIMIT)
    assert over == [], 'split these files by what they hold: %s' % ', '.join(over)


def test_no_class_outgrows_the_house():
    files = GENERATOR.read_files()
    over = sorted('%s.py: %s (%d lines)' % (name, cls, size) for name, (source, _tree) in files.items()
                  for cls, size in GENERATOR.class_sizes(source) if size > CLASS_LIMIT)
    assert over == [], 'split these classes: %s' % ', '.join(over)
