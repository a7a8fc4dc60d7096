# -*- coding: utf-8 -*-
"""Each role's README shows the variables of its argument spec, generated, never edited by hand."""

import os

import pytest
import yaml

from docs_scripts import load


GENERATOR = load('generate_role_readmes')


@pytest.mark.parametrize('readme_path, specs_path', GENERATOR.roles(),
                         ids=[os.path.basename(os.path.dirname(readme)) for readme, _specs in GENERATOR.roles()])
def test_role_readme_lists_the_variables_of_the_argument_spec(readme_path, specs_path):
    with open(specs_path) as handle:
        specs = yaml.safe_load(handle)
    with open(readme_path) as handle:
        committed = handle.read()
    assert committed == GENERATOR.render(committed, specs), 'run: make docs'
    for option in specs['argument_specs']['main']['options']:
        assert '| `%s` |' % option in committed


def test_markup_becomes_markdown():
    assert GENERATOR.markdown('O(fleet_file), V(on_create), I(not) B(this), U(http://127.0.0.1)') == \
        '`fleet_file`, `on_create`, *not* **this**, <http://127.0.0.1>'


def test_a_new_option_makes_the_readme_stale():
    readme = 'intro\n%s\nold\n%s\nexample\n' % (GENERATOR.BEGIN, GENERATOR.END)
    specs = {'argument_specs': {'main': {'options': {
        'role_items': {'type': 'list', 'elements': 'str', 'default': [], 'description': ['The C(items).']},
        'role_mode': {'type': 'str', 'required': True, 'choices': ['a', 'b'], 'description': ['Mode.']}}}}}
    rendered = GENERATOR.render(readme, specs)
    assert rendered != readme
    assert rendered.startswith('intro\n') and rendered.endswith('%s\nexample\n' % GENERATOR.END)
    assert '| `role_items` | list of str | `[]` | The `items`. |' in rendered
    assert '| `role_mode` | str | required | Mode. One of `a`, `b`. |' in rendered


def test_a_description_given_as_one_string_is_one_paragraph():
    specs = {'argument_specs': {'main': {'options': {
        'role_key': {'type': 'str', 'default': 'a', 'description': 'The O(role_key) of a node.'}}}}}
    assert '| `role_key` | str | `a` | The `role_key` of a node. |' in GENERATOR.render_variables(specs)
