# -*- coding: utf-8 -*-
"""baremetal_node's DOCUMENTATION and RETURN hold the record fields as the table (node/record_fields.py) declares
them: the generated parts must not drift from it, and they document what the argument spec derived from it takes."""

import yaml

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_fields
from ansible_collections.baremetal.lifecycle.plugins.modules import baremetal_node

from docs_scripts import load

GENERATOR = load('generate_record_options')


def _committed():
    with open(GENERATOR.MODULE) as handle:
        return handle.read()


def test_the_record_fields_of_the_module_docs_are_generated_from_the_table():
    committed = _committed()
    assert committed == GENERATOR.render(committed), (
        'run: make docs (PYTHONPATH=.work/collections python3 docs/generate_record_options.py)')


def test_a_stale_part_is_found(monkeypatch):
    """A row whose docs changed makes the committed module stale: the test above would fail."""
    committed = _committed()
    monkeypatch.setattr(record_fields.FIELDS['owner'], 'element', 'The project that owns it, now.')
    rendered = GENERATOR.render(committed)
    assert rendered != committed
    assert '        description: The project that owns it, now.\n' in rendered


def test_an_edited_part_is_put_back():
    committed = _committed()
    edited = committed.replace('        description: The resource class.\n', '        description: Edited.\n')
    assert edited != committed
    assert GENERATOR.render(edited) == committed


def test_a_missing_marker_is_named():
    committed = _committed().replace(GENERATOR.END % GENERATOR.VIEW_SAMPLE, '')
    try:
        GENERATOR.render(committed)
    except ValueError as exc:
        assert GENERATOR.VIEW_SAMPLE in str(exc)
    else:
        raise AssertionError('a module without its END marker was rewritten')


def _shape(spec):
    """What an argument spec says of its options, as DOCUMENTATION says it."""
    return dict((name, dict(type=entry['type'], elements=entry.get('elements'), required=entry.get('required', False),
                            default=entry.get('default'), choices=entry.get('choices'),
                            options=_shape(entry.get('options') or entry.get('suboptions') or {})))
                for name, entry in spec.items())


def test_the_generated_docs_say_what_the_argument_spec_takes():
    documentation = yaml.safe_load(baremetal_node.DOCUMENTATION)
    task = dict((name, documentation['options'][name]) for name in record_fields.RECORD_SPEC)
    element = dict((name, documentation['options']['nodes']['suboptions'][name]) for name in record_fields.RECORD_SPEC)
    assert _shape(task) == _shape(record_fields.RECORD_SPEC)
    assert _shape(element) == _shape(record_fields.RECORD_SPEC)


def test_api_versions_are_read_from_the_capabilities_table():
    documentation = yaml.safe_load(baremetal_node.DOCUMENTATION)
    assert '(Ironic API 1.82)' in documentation['options']['shard']['description'][0]
    assert '{api:' not in baremetal_node.DOCUMENTATION


def test_a_paragraph_yaml_would_misread_is_quoted():
    text = 'Set it to V(x): then # is kept, as is a key: value.'
    lines = GENERATOR._paragraph('  - ', text, 4)
    assert yaml.safe_load('\n'.join(lines)) == [text]


def test_a_long_paragraph_is_folded_and_reads_back_whole():
    text = ' '.join(['word%d' % number for number in range(60)])
    lines = GENERATOR._paragraph('      - ', text, 8)
    assert len(lines) > 1 and max(len(line) for line in lines) <= GENERATOR.WIDTH
    assert yaml.safe_load('\n'.join(lines)) == [text]


def test_the_sample_node_shows_every_viewed_field():
    sample = yaml.safe_load(baremetal_node.RETURN)['node']['sample']
    assert [name for name in record_fields.VIEW_FIELDS if name not in sample] == []


def test_a_description_says_the_lengths_of_its_option(monkeypatch):
    option = record_fields.Option('x', 'str', ['At most {length}; from API {api:shard}.'], length=(1, 8))
    assert GENERATOR.render_option(option, 2, '0.1.0', False) == [
        '  x:', '    description:', '      - At most 1 to 8 characters; from API 1.82.', '    type: str']
