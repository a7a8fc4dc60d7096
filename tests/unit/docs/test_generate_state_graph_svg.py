# -*- coding: utf-8 -*-
"""The picture of the state graph (docs/state-graph.svg) is drawn from the engine's current table."""

import collections
import os
from xml.etree import ElementTree

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states

from docs_scripts import ROOT, load

SVG = '{http://www.w3.org/2000/svg}'


GENERATOR = load('generate_state_graph_svg')
PICTURE = ElementTree.parse(os.path.join(ROOT, 'docs', 'state-graph.svg')).getroot()


def _drawn(kind):
    """(title, label) of every node or edge Graphviz drew in the committed picture."""
    return collections.Counter(
        (group.find(SVG + 'title').text, ' '.join(text.text for text in group.iter(SVG + 'text')))
        for group in PICTURE.iter(SVG + 'g') if group.get('class') == kind)


def test_picture_was_drawn_from_the_current_table():
    embedded = PICTURE.find("%smetadata[@id='%s']" % (SVG, GENERATOR.SOURCE_ID)).text.lstrip('\n')
    assert embedded == GENERATOR.render_dot(states, graph), 'the table changed: run make docs'


def test_picture_shows_every_state_at_rest_and_every_planned_verb():
    at_rest = [state for state, (kind, _target) in states.STATES.items() if kind in (states.STABLE, states.FAILED)]
    assert _drawn('node') == collections.Counter((state, state) for state in at_rest)
    expected = [('%s->%s' % (step.source, step.landing), GENERATOR.edge_label(step)) for step in graph.EDGES]
    expected += [('%s->%s' % (step.source, step.landing), '%s (%s)' % (GENERATOR.edge_label(step), action.option))
                 for action, step in graph.ACTION_EDGES]
    assert _drawn('edge') == collections.Counter(expected)


class _Step(object):
    def __init__(self, verb, source, landing, destructive=False, cleans_disks=False):
        self.verb, self.source, self.landing = verb, source, landing
        self.destructive, self.cleans_disks = destructive, cleans_disks


class _Action(object):
    def __init__(self, option):
        self.option = option


class _Table(object):
    """A small table in the shape of states and graph, to see each rule of the drawing on its own."""
    STABLE, FAILED, TRANSIENT = states.STABLE, states.FAILED, states.TRANSIENT
    STATES = {'enroll': (STABLE, None), 'cleaning': (TRANSIENT, 'available'), 'available': (STABLE, None),
              'quarantine': (STABLE, None), 'clean failed': (FAILED, 'available')}
    DECLARABLE_STATES = ('enroll', 'available')
    EDGES = (_Step('provide', 'enroll', 'available', cleans_disks=True),
             _Step('deleted', 'clean failed', 'available', destructive=True, cleans_disks=True))
    ACTION_EDGES = ((_Action('clean_steps'), _Step('clean', 'available', 'available', cleans_disks=True)),
                    (_Action('rebuild'), _Step('rebuild', 'clean failed', 'available', destructive=True)))


def test_dot_source_follows_the_table():
    dot = GENERATOR.render_dot(_Table, _Table)
    assert '"enroll" [fillcolor="%s"];' % GENERATOR.DECLARABLE_FILL in dot
    assert '"quarantine" [fillcolor="%s"];' % GENERATOR.OTHER_STABLE_FILL in dot
    assert '"clean failed" [fillcolor="%s", color="%s"];' % (GENERATOR.FAILED_FILL, GENERATOR.DESTRUCTIVE_COLOR) in dot
    assert '"cleaning"' not in dot
    assert '"enroll" -> "available" [label="provide *"];' in dot
    assert '"clean failed" -> "available" [label="deleted *", color="#cc0000", fontcolor="#cc0000", style=dashed];' in dot
    assert '"available" -> "available" [label="clean * (clean_steps)", style=dotted];' in dot
    assert ('"clean failed" -> "available" [label="rebuild (rebuild)", color="#cc0000", fontcolor="#cc0000", '
            'style=dotted];') in dot


def test_embedded_source_reads_back():
    svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1pt">\n<g class="graph"/></svg>\n'
    dot = 'digraph g {\n    "a" -> "b" [label="x < y & z"];\n}\n'
    root = ElementTree.fromstring(GENERATOR.embed_source(svg, dot).encode('utf-8'))
    assert root.find("%smetadata[@id='%s']" % (SVG, GENERATOR.SOURCE_ID)).text.lstrip('\n') == dot
