# -*- coding: utf-8 -*-
"""The release is coherent: galaxy.yml's version is the newest release of changelogs/changelog.yaml, every module,
plugin and role says in ``version_added`` the release that first shipped it, the changelog lists each of them in
that release, and the changelog's text carries no Ansible markup that antsibull-changelog would print literally."""

import ast
import glob
import os
import re

import pytest
import yaml

from ansible.module_utils.compat.version import LooseVersion

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# O(...), C(...), V(...), M(...), P(...), E(...), I(...), B(...), U(...), L(...), RV(...): antsibull-changelog 0.36
# renders the fragments as RST and leaves these as they are written; write ``...`` instead.
ANSIBLE_MARKUP = re.compile(r'(?<![A-Za-z0-9_\\])(?:[OCVMPEIBUL]|RV)\\?\(')


def _load(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as f:
        return yaml.safe_load(f)


def _docs_of_python_plugin(path):
    tree = ast.parse(open(path, encoding='utf-8').read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == 'DOCUMENTATION' for t in node.targets):
            return yaml.safe_load(node.value.value)
    return None


def _documented():
    """(kind, name) -> version_added, for every module, plugin and role of the collection."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'plugins', 'modules', '*.py'))):
        name = os.path.basename(path)[:-3]
        if name != '__init__':
            found[('module', name)] = _docs_of_python_plugin(path)['version_added']
    for path in sorted(glob.glob(os.path.join(ROOT, 'plugins', 'inventory', '*.py'))):
        docs = _docs_of_python_plugin(path)
        if docs:
            found[('inventory', docs['name'])] = docs['version_added']
    for path in sorted(glob.glob(os.path.join(ROOT, 'plugins', 'filter', '*.yml'))):
        docs = _load(path)['DOCUMENTATION']
        found[('filter', docs['name'])] = docs['version_added']
    for path in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml'))):
        role = path.split(os.sep)[-3]
        found[('role', role)] = _load(path)['argument_specs']['main'].get('version_added')
    return found


def _released():
    """(kind, name) -> the releases of changelogs/changelog.yaml that list it as new."""
    listed = {}
    for version, release in _load('changelogs/changelog.yaml')['releases'].items():
        for module in release.get('modules', []):
            listed.setdefault(('module', module['name']), []).append(version)
        for section in ('plugins', 'objects'):
            for kind, entries in release.get(section, {}).items():
                for entry in entries:
                    listed.setdefault((kind, entry['name']), []).append(version)
    return listed


def _newest_release():
    return max(_load('changelogs/changelog.yaml')['releases'], key=LooseVersion)


def _galaxy_version():
    return str(_load('galaxy.yml')['version'])


def test_galaxy_version_is_the_newest_release_or_the_one_being_prepared():
    """Equal to the newest release once `make release` cut it; before, the next one, with its fragments waiting
    (antsibull-changelog release names the release after galaxy.yml's version)."""
    version, newest = _galaxy_version(), _newest_release()
    if version != newest:
        assert LooseVersion(version) > LooseVersion(newest), (
            "galaxy.yml's version %s is older than the newest release %s" % (version, newest))
        assert glob.glob(os.path.join(ROOT, 'changelogs', 'fragments', '*.y*ml')), (
            "galaxy.yml's version %s is not released (the newest release is %s), and no fragment waits for it"
            % (version, newest))


# Every version_added of the collection, however deep: modules' and plugins' options, doc fragments, roles' options.
VERSION_ADDED = re.compile(r'^\s*version_added:\s*[\'"]?([0-9][0-9.]*)[\'"]?\s*$', re.MULTILINE)


def _versions_added():
    """(path, version) of every version_added in plugins/ and the roles' argument specs."""
    paths = sorted(glob.glob(os.path.join(ROOT, 'plugins', '**', '*.py'), recursive=True)
                   + glob.glob(os.path.join(ROOT, 'plugins', '**', '*.yml'), recursive=True)
                   + glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml')))
    found = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            found.extend((os.path.relpath(path, ROOT), version) for version in VERSION_ADDED.findall(f.read()))
    return found


def test_galaxy_version_covers_every_version_added():
    """ansible-doc shows 'added in X' beside an option: the installed collection's version must reach X."""
    found = _versions_added()
    assert len(found) > 100, found  # the pattern still finds the collection's version_added
    later = sorted(set('%s: %s' % item for item in found if LooseVersion(item[1]) > LooseVersion(_galaxy_version())))
    assert later == [], "galaxy.yml's version is %s; raise it to the newest of these" % _galaxy_version()


@pytest.mark.parametrize('kind_name', sorted(_documented()), ids=lambda k: '%s:%s' % k)
def test_version_added_is_the_release_that_lists_it_or_one_to_come(kind_name):
    version_added = _documented()[kind_name]
    assert version_added, '%s %s has no version_added' % kind_name
    version_added = str(version_added)
    if kind_name not in _released():
        # Not released yet: `make release` (antsibull-changelog) lists it in the release of its version_added.
        assert LooseVersion(version_added) > LooseVersion(_newest_release()), (
            '%s %s says version_added %s, but no release lists it' % (kind_name + (version_added,)))
        return
    assert _released().get(kind_name) == [version_added], (
        '%s %s says version_added %s; changelogs/changelog.yaml lists it in %s'
        % (kind_name + (version_added, _released().get(kind_name))))


def test_every_plugin_in_the_changelog_exists():
    assert sorted(set(_released()) - set(_documented()) - {('playbook', p) for p in _playbooks()}) == []


def _playbooks():
    return [os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ROOT, 'playbooks', '*.yml'))]


def _added_by_fragments():
    """(kind, name) of the objects and plugins the fragments add (``add object.playbook``...): the next release
    lists them."""
    added = set()
    for path in glob.glob(os.path.join(ROOT, 'changelogs', 'fragments', '*.y*ml')):
        for section, entries in (_load(os.path.relpath(path, ROOT)) or {}).items():
            if section.startswith('add '):
                added.update((section.split('.', 1)[1], entry['name']) for entry in entries)
    return added


def test_every_playbook_is_in_the_changelog_or_a_fragment():
    listed = set(_released()) | _added_by_fragments()
    assert sorted(p for p in _playbooks() if ('playbook', p) not in listed) == []


def test_release_notes_carry_no_ansible_markup():
    texts = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'changelogs', 'fragments', '*.y*ml'))):
        texts.append((path, open(path, encoding='utf-8').read()))
    with open(os.path.join(ROOT, 'changelogs', 'changelog.yaml'), encoding='utf-8') as changelog:
        texts.append(('changelogs/changelog.yaml', changelog.read()))
    texts.append(('CHANGELOG.md', open(os.path.join(ROOT, 'CHANGELOG.md'), encoding='utf-8').read()))
    found = ['%s: %s' % (path, line.strip()) for path, text in texts for line in text.splitlines()
             if ANSIBLE_MARKUP.search(line)]
    assert found == []
