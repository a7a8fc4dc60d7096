# -*- coding: utf-8 -*-
"""Headless Chromium (Debian's ``chromium``) for the tests of pages the collection writes, and a small DOM of what
it renders (the standard library's HTML parser: no dependency).

tests/utils/debian_package.sh installs it where ``make test`` runs; every Chromium process a test starts is in a process
group of its own, stopped by that group's id when the command ends or its time is up.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from html.parser import HTMLParser

CHROMIUM = os.environ.get('BAREMETAL_LIFECYCLE_CHROMIUM', '/usr/bin/chromium')
# Each flag keeps the browser to the page: no network of its own, no first-run or sync work, no sandbox (the tests may
# run as root, where Chromium's sandbox refuses to start).
FLAGS = ('--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-dev-shm-usage', '--hide-scrollbars')
TIMEOUT = 120


def chromium(*arguments, workdir, timeout=TIMEOUT):
    """Run ``chromium FLAGS --user-data-dir=<fresh dir under workdir> ARGUMENTS``; returns its standard output.

    The browser and its helpers (zygote, renderer, GPU process) share one new process group: it is killed by its id
    once the command has ended or timed out, so no Chromium process outlives the call."""
    if not os.access(CHROMIUM, os.X_OK):
        raise AssertionError("%s is missing: install Debian's chromium (tests/utils/debian_package.sh chromium "
                             "/usr/bin/chromium ... does, as root)" % CHROMIUM)
    profile = tempfile.mkdtemp(prefix='chromium-profile-', dir=str(workdir))
    process = subprocess.Popen(  # pylint: disable=consider-using-with
        [CHROMIUM] + list(FLAGS) + ['--user-data-dir=' + profile] + list(arguments),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(process.pid)
        process.communicate()
        raise
    finally:
        _stop_group(process.pid)
    if process.returncode != 0:
        raise AssertionError('chromium exited with %d:\n%s' % (process.returncode, stderr[-4000:]))
    return stdout


def _stop_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Element(object):
    def __init__(self, tag, attrs, parent=None):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []
        self.parts = []

    @property
    def text(self):
        return ' '.join(''.join(part if isinstance(part, str) else part.text + ' ' for part in self.parts).split())

    @property
    def classes(self):
        return set((self.attrs.get('class') or '').split())

    def iter(self, tag=None):
        for child in self.children:
            if tag is None or child.tag == tag:
                yield child
            yield from child.iter(tag)

    def find(self, element_id):
        return next((element for element in self.iter() if element.attrs.get('id') == element_id), None)


_VOID = frozenset(('area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'))


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.current = Element('#document', {})

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs, self.current)
        self.current.children.append(element)
        self.current.parts.append(element)
        if tag not in _VOID:
            self.current = element

    def handle_endtag(self, tag):
        element = self.current
        while element is not None and element.tag != tag:
            element = element.parent
        if element is not None and element.parent is not None:
            self.current = element.parent

    def handle_data(self, data):
        self.current.parts.append(data)


def parse(html):
    """The document's tree of Elements (tag, attrs, children, text, classes, iter(tag), find(id))."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


# Added to a copy of a page, after the page's own script: runs a probe (the body of a function) once the page has run
# its own, keeps what it returns as JSON in the body's data-probe attribute, and empties the body but for it, so that
# the dumped document is small whatever the page's size.
_PROBE = '''<script>
(function () {
  var result = JSON.stringify((function () { PROBE }()));
  document.body.textContent = "";
  document.body.setAttribute("data-probe", result);
}());
</script>'''


def probe(page, script, workdir, window_width=1280, fragment=''):
    """What script returns (JavaScript, the body of a function returning what JSON can hold) on the page (a path),
    run in Chromium once the page has run its own script, in a window window_width pixels wide, the page opened with
    fragment (#...) in its address. The page is read from a copy with the probe added before </body>."""
    with open(page, encoding='utf-8') as handle:
        html = handle.read()
    if '</body>' not in html:
        raise AssertionError('%s has no </body> to add the probe before' % page)
    copy = os.path.join(str(workdir), 'probed-%d-%s' % (window_width, os.path.basename(str(page))))
    with open(copy, 'w', encoding='utf-8') as handle:
        handle.write(html.replace('</body>', _PROBE.replace('PROBE', script) + '</body>', 1))
    dumped = parse(chromium('--dump-dom', '--window-size=%d,1000' % window_width, 'file://' + copy + fragment,
                            workdir=workdir))
    return json.loads(next(dumped.iter('body')).attrs['data-probe'])


# For each element of class panel, named by the first element with an id inside it, the width its content needs, the
# width it shows, and its overflow-x (whether what does not fit scrolls or is cut off).
_PANEL_PROBE = '''return Array.prototype.map.call(document.querySelectorAll(".panel"), function (panel) {
  return [(panel.querySelector("[id]") || {}).id || "", panel.scrollWidth, panel.clientWidth,
          getComputedStyle(panel).overflowX];
});'''


def panel_widths(page, window_width, workdir):
    """{panel: (width its content needs, width it shows, its overflow-x)} of each panel of the page (a path) as
    Chromium lays it out in a window window_width pixels wide; a panel is named by the first element with an id in
    it."""
    return dict((name, (needed, shown, overflow)) for name, needed, shown, overflow
                in probe(page, _PANEL_PROBE, workdir, window_width))
