# -*- coding: utf-8 -*-
"""Wrong and empty input, drawn by Hypothesis, against the real Ironic: for every module that writes and every shape
that names its nodes (one node, nodes:, select:), a naming that names no node or an option given a list or a
dictionary where a string is documented fails with a message that names the option, and Ironic's log shows no write;
so does a wrong fleet file given to the fleet role.

test_bad_input.py holds the cases written by hand, one each, with their whole messages; this draws many more of the
same kinds. An example is a batch of tasks run by one ansible-playbook (one process per task would spend most of
the time starting Python); make test draws the same examples every time (the derandomized profile of
tests/conftest.py), and pytest --hypothesis-profile=explore draws new ones.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from test_fleet_role import converge

# The modules that write, each with options that are right, so that only the naming of the nodes is wrong; and the
# option naming one node (baremetal_node's is name).
MODULES = {
    'baremetal_provision_state': ({'state': 'manageable'}, 'node'),
    'baremetal_power': ({'state': 'powered_on'}, 'node'),
    'baremetal_maintenance': ({'state': 'enabled', 'reason': 'drawn'}, 'node'),
    'baremetal_hardware': ({'bios_settings': {'ProcTurboMode': 'Disabled'}}, 'node'),
    'baremetal_node': ({'extra': {'drawn': 'yes'}}, 'name'),
}
FILTERS = ('resource_class', 'conductor_group', 'owner', 'shard')

# Text that templating leaves as it is (no {{, {% or {#) and YAML reads back as the same string.
_TEXT = st.text(st.characters(codec='ascii', exclude_characters='{}%#\\"\'\n\r\t\x00'), max_size=12)
_BLANK = st.sampled_from(['', ' ', '  ', '\t'])
# A node name Ironic refuses: blank, or with a character outside RFC 3986's unreserved ones.
_BAD_NAME = _BLANK | st.builds(lambda head, bad, tail: head + bad + tail,
                               _TEXT, st.sampled_from(' /?&@:+,;='), _TEXT)


def _empty_selection():
    """A select that sets no filter: {}, or some filters null (as a filter templated from an empty variable is), or
    a filter that is blank, with all false or unset."""
    nulls = st.lists(st.sampled_from(FILTERS), unique=True).map(dict.fromkeys)
    blank = st.tuples(st.sampled_from(FILTERS), _BLANK).map(lambda item: {item[0]: item[1]})
    with_all = st.sampled_from([{}, {'all': False}])
    return st.tuples(nulls | blank, with_all).map(lambda parts: dict(parts[0], **parts[1]))


def _bad_element(key):
    """An element of nodes that names no node: null, blank, a number, a dictionary without a node name or with a
    key no module has."""
    return st.one_of(
        st.none(), _BLANK, st.integers(), st.just({}), _BLANK.map(lambda blank: {key: blank}),
        st.just({key: 'drawn-node', 'no_such_option_drawn': 1}),
    )


def _nodes(key, options):
    """A nodes list with at least one element that names no node, among good names (baremetal_node's elements are
    records: each holds the task's options, which baremetal_node does not take beside nodes)."""
    good = st.sampled_from(['drawn-a', 'drawn-b']).map(lambda name: dict(options, name=name) if key == 'name' else name)
    return st.tuples(st.lists(good, max_size=2, unique_by=str), _bad_element(key), st.integers(0, 2)).map(
        lambda parts: parts[0][:parts[2]] + [parts[1]] + parts[0][parts[2]:])


# A list or a dictionary where a string is documented: Ansible would send its Python text to Ironic.
_CONTAINER = (st.lists(_TEXT, min_size=1, max_size=3)
              | st.dictionaries(_TEXT.filter(bool), _TEXT, min_size=1, max_size=2))


def _wrongly_typed(draw, module, options, node_key):
    """(args, the option the message must name) with a list or a dictionary for a string option: the option naming
    the node, a filter of select, or (baremetal_node) a record field of the task or of an element of nodes."""
    value = draw(_CONTAINER)
    where = draw(st.sampled_from(['node', 'select'] + (['record', 'element'] if module == 'baremetal_node' else [])))
    if where == 'node':
        return dict(options, **{node_key: value}), node_key
    if where == 'select':
        return dict(options, select={draw(st.sampled_from(FILTERS)): value}), 'select.'
    field = draw(st.sampled_from(['resource_class', 'description', 'owner']))
    if where == 'record':
        return dict(options, name='drawn-a', driver='fake-hardware', **{field: value}), field
    return {'nodes': [dict(options, name='drawn-a', driver='fake-hardware', **{field: value})]}, 'nodes[0].' + field


@st.composite
def wrong_task(draw):
    """(module, args, the option the message must name)."""
    module = draw(st.sampled_from(sorted(MODULES)))
    options, node_key = MODULES[module]
    shape = draw(st.sampled_from(['select', 'nodes', 'node', 'typed']))
    if shape == 'typed':
        args, named = _wrongly_typed(draw, module, options, node_key)
        return module, args, named
    if shape == 'select':
        return module, dict(options, select=draw(_empty_selection())), 'select'
    if shape == 'nodes' and module == 'baremetal_node':
        return module, dict(nodes=draw(_nodes('name', options))), 'nodes'
    if shape == 'nodes':
        return module, dict(options, nodes=draw(_nodes('node', options))), 'nodes'
    return module, dict(options, **{node_key: draw(_BAD_NAME)}), node_key


def playbook(tasks, results_path, check):
    """One play running every task, each allowed to fail, and writing their registered results to results_path."""
    steps = []
    for index, (module, args, _named) in enumerate(tasks):
        steps.append({'name': 'drawn %d' % index, 'baremetal.lifecycle.%s' % module: args,
                      'register': 'drawn_%d' % index, 'ignore_errors': True, 'check_mode': check})
    every = ', '.join('drawn_%d' % index for index in range(len(tasks)))
    steps.append({'name': 'results', 'ansible.builtin.copy': {
        'content': '{{ [%s] | to_json }}' % every, 'dest': results_path, 'mode': '0600'}, 'check_mode': False})
    return json.dumps([{'hosts': 'localhost', 'gather_facts': False, 'tasks': steps}])


@pytest.fixture(scope='module')
def drawn_dir(tmp_path_factory):
    return tmp_path_factory.mktemp('drawn')


# run_playbook writes each playbook to a file of its own: nothing of one example is left for the next. An example
# costs a playbook run of seconds: no shrinking, which would run hundreds; the failing batch is shown as drawn.
@settings(max_examples=4, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(tasks=st.lists(wrong_task(), min_size=6, max_size=6), check=st.booleans())
def test_a_drawn_wrong_or_empty_naming_of_nodes_fails_naming_the_option_and_writes_nothing(
        ironic, run_playbook, drawn_dir, tasks, check):
    results_path = drawn_dir / 'results.json'
    results_path.unlink(missing_ok=True)
    mark = ironic.log_mark()
    rc, output = run_playbook(playbook(tasks, str(results_path), check))
    assert rc == 0, output[-3000:]
    assert ironic.write_requests_since(mark) == []
    results = json.loads(results_path.read_text(encoding='utf-8'))
    for (module, args, named), result in zip(tasks, results):
        assert result.get('failed'), (module, args, result)
        assert named in result['msg'], (module, args, result['msg'])


# -- the fleet file ------------------------------------------------------------------------------------------------

# A fleet file's node with one field wrong, and the words the role's message must hold for it.
_WRONG_FLEET_FIELDS = st.sampled_from([
    ({'name': ''}, 'name'),
    ({'name': ['drawn']}, 'name'),
    ({'driver': ['fake-hardware']}, 'driver'),
    ({'resource_class': ['a', 'b']}, 'resource_class'),
    ({'ports': [{'address': '52:54:00:12:34'}]}, 'ports[0].address'),
    ({'properties': {'cpus': 'eight'}}, 'properties.cpus'),
    ({'provision_state': 'deployed'}, 'provision_state'),
    ({'drvier': 'fake-hardware'}, 'drvier'),
])


@settings(max_examples=2, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(wrong=st.lists(_WRONG_FLEET_FIELDS, min_size=2, max_size=4, unique_by=lambda item: item[1]),
       check=st.booleans())
def test_a_drawn_wrong_fleet_file_fails_naming_each_field_and_writes_nothing(ironic, run_playbook, wrong, check):
    nodes = [dict({'name': 'drawn-fleet-%d' % index, 'driver': 'fake-hardware'}, **fields)
             for index, (fields, _named) in enumerate(wrong)]
    nodes.append({'name': 'drawn-fleet-good', 'driver': 'fake-hardware'})
    mark = ironic.log_mark()
    rc, output = converge(run_playbook, nodes, check=check)
    assert rc != 0, output[-3000:]
    assert ironic.write_requests_since(mark) == []
    for index, (_fields, named) in enumerate(wrong):
        assert 'fleet[%d]' % index in output and named in output, (named, output[-3000:])
    assert ironic.api('GET', '/nodes/drawn-fleet-good', expect=(404,)) is not None
