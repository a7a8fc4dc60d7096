# -*- coding: utf-8 -*-
"""What one module process costs, by how it is told where Ironic is.

Starts its own Ironic on a free loopback port and, in the same run, times baremetal_node_info reading one node
(a process as Ansible starts it on a host: Python, imports, connection, two requests):
  endpoint        endpoint: the baseline, nothing to read;
  cloud           cloud: a clouds.yaml entry with auth_type none (read without openstacksdk);
  cloud via sdk   the same entry with a regions list, which only openstacksdk resolves: what every cloud cost
                  before (openstacksdk's config import and parsing);
and a bare interpreter importing Ansible's module basics (alone, and with requests), the floors no module goes under.
Ratios are against the endpoint baseline and against the basics alone (issue 20's target: the endpoint process
within 1.6x of it), medians of the rounds, variants interleaved within each round.

Then what importing each module costs on a host (issue 41's target: every module within 1.6x of the basics; issue
28's 1.4x is retired): the CPU seconds (user + system, steadier than wall time on a busy machine) of a Python that
imports the module and exits, against one that imports ansible.module_utils.basic, interleaved, the median of the
rounds. Both import from one payload zip built as Ansible builds it: ansible-core's AnsiballZ
(ansible/executor/module_common.py builds the zip, ansible/_internal/_ansiballz/_wrapper.py runs it) ships the
module and every module_utils file it needs, ansible/module_utils/basic.py included, in one ZIP_DEFLATED zip that it
puts first on sys.path, so zipimport compiles every one of those files, Ansible's and ours, on every run; nothing is
cached on the host. The payload here holds all of ansible/module_utils and the collection's plugins/modules and
plugins/module_utils, with AnsiballZ's stand-ins for ansible/__init__.py and the empty __init__.py of the namespace
packages; each Python runs with an empty environment but PYTHONDONTWRITEBYTECODE, and a first untimed pass checks
that every ansible and collection file comes from the zip.
With --old-checkout DIR, the modules of that checkout too (a worktree of an older commit), from a payload of its own,
interleaved with this checkout's in each round: the import figures before and after a change, in one run.

Then the controller's part of a module's start-up, which a playbook pays once per module and run (ansible-playbook
keeps the payload only in its own temporary directory): building the payload. ansible-core's recursive_finder parses
the module and every module_utils file its imports reach (a function's imports too: a deferred import saves the host's
compile, not the controller's parse) and zips them. For the three modules whose import costs most, and for a module
that imports only the basics (the floor), the CPU seconds of recursive_finder in a fresh Python and the files and
bytes of the collection it zips, interleaved with --old-checkout's, the median of the rounds. The first task of a run
pays the build in a worker of ansible-playbook, whose larger heap made the garbage collector cost more than here
until the collection's action plugins paused it for the build (bench/README.md, "The controller's payload build and
the garbage collector").

    python bench/bench_startup.py [--rounds 5] [--ironic-venv DIR] [--old-checkout DIR]
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time
import zipfile

import common

NODE = 'bench-startup-node'


def clouds_yaml(bench):
    entry = '    auth_type: none\n    baremetal_endpoint_override: %s\n' % bench.endpoint
    return 'clouds:\n  %s:\n%s  %s-sdk:\n%s    regions: [RegionOne]\n' % (bench.cloud, entry, bench.cloud, entry)


def interpreter(imports):
    started = time.monotonic()
    subprocess.run([sys.executable, '-c', 'import %s' % imports], check=True)
    return time.monotonic() - started


# The floors no module goes under: Python with Ansible's module basics (issue 20's reference), and with requests too.
FLOORS = (('python + ansible basics', 'ansible.module_utils.basic'),
          ('python + ansible basics + requests', 'ansible.module_utils.basic, requests'))


def measure(bench, rounds):
    """{path: [seconds of each round]}: the module's variants and the floors, interleaved within each round."""
    bench.write('clouds.yaml', clouds_yaml(bench))
    bench.raw.call('POST', '/nodes', {'name': NODE, 'driver': 'fake-hardware'})
    variants = [('endpoint', dict(endpoint=bench.endpoint)), ('cloud', dict(cloud=bench.cloud)),
                ('cloud via sdk', dict(cloud=bench.cloud + '-sdk'))]
    samples = dict((name, []) for name, _ in variants + list(FLOORS))
    bench.module('baremetal_node_info', node=NODE, endpoint=bench.endpoint)  # warm the file cache
    for _round in range(rounds):
        for name, imports in FLOORS:
            samples[name].append(interpreter(imports))
        for name, connection in variants:
            seconds, result = bench.module('baremetal_node_info', node=NODE, **connection)
            if result.get('failed') or result['nodes'][0]['name'] != NODE:
                raise common.BenchError('%s: %s' % (name, result.get('msg')))
            samples[name].append(seconds)
    bench.raw.call('DELETE', '/nodes/%s' % NODE)
    return samples


BASICS = 'ansible.module_utils.basic'
COLLECTION = 'ansible_collections/baremetal/lifecycle'
# What AnsiballZ writes in place of ansible/__init__.py and ansible/module_utils/__init__.py (module_common.py,
# recursive_finder's py_module_cache; it adds __version__ and __author__, which importing does not read).
ANSIBLE_INIT = 'from pkgutil import extend_path\n__path__=extend_path(__path__,__name__)\n'


def modules(root=common.ROOT):
    """The modules of the collection checked out at root, by name."""
    return sorted(name[:-3] for name in os.listdir(os.path.join(root, 'plugins', 'modules'))
                  if name.endswith('.py') and not name.startswith('_'))


def _sources(top, arcname):
    """(path, name in the zip) of every .py file under top, __pycache__ left out."""
    for folder, folders, files in os.walk(top):
        folders[:] = sorted(name for name in folders if name != '__pycache__')
        for name in sorted(files):
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                yield path, '/'.join([arcname] + os.path.relpath(path, top).split(os.sep))


def payload_zip(path, collection_root, ansible_dir=None):
    """Write at path a payload as AnsiballZ builds it; returns path.

    ansible/module_utils (of ansible_dir, the ansible package, by default the one this Python imports) and the
    collection's plugins/modules and plugins/module_utils (of collection_root), deflated; ansible/__init__.py and
    ansible/module_utils/__init__.py are AnsiballZ's stand-ins, the collection's namespace packages down to
    plugins/modules and plugins/module_utils get empty __init__.py files.
    """
    if ansible_dir is None:
        import ansible
        ansible_dir = os.path.dirname(ansible.__file__)
    empty = ['ansible_collections', 'ansible_collections/baremetal', COLLECTION, COLLECTION + '/plugins',
             COLLECTION + '/plugins/modules', COLLECTION + '/plugins/module_utils']
    stand_ins = dict([('ansible/__init__.py', ANSIBLE_INIT), ('ansible/module_utils/__init__.py', ANSIBLE_INIT)]
                     + [(package + '/__init__.py', '') for package in empty])
    files = list(_sources(os.path.join(ansible_dir, 'module_utils'), 'ansible/module_utils'))
    for plugins in ('modules', 'module_utils'):
        files += _sources(os.path.join(collection_root, 'plugins', plugins), COLLECTION + '/plugins/' + plugins)
    with zipfile.ZipFile(path, 'w', compression=zipfile.ZIP_DEFLATED) as payload:
        for name, text in sorted(stand_ins.items()):
            payload.writestr(name, text)
        for source, name in files:
            if name not in stand_ins:
                payload.write(source, name)
    return path


def _python(payload, code):
    """A Python as AnsiballZ's wrapper starts it: an empty environment but PYTHONDONTWRITEBYTECODE, payload first."""
    return subprocess.run([sys.executable, '-c', 'import sys; sys.path.insert(0, %r); %s' % (payload, code)],
                          env={'PYTHONDONTWRITEBYTECODE': '1'}, check=True, capture_output=True, text=True).stdout


def imported_elsewhere(payload, name):
    """The ansible and collection files that importing name loads from anywhere but payload (none, or the payload
    misses a file and the measurement would take it compiled from the disk). Aliases (ansible.module_utils.distro is
    the distro package when installed, six.moves) are not files of theirs."""
    code = ('import %s; print("\\n".join(sorted(module for module, loaded in sys.modules.items() '
            'if module.split(".")[0] in ("ansible", "ansible_collections") and loaded.__name__ == module '
            'and getattr(loaded, "__file__", None) and not loaded.__file__.startswith(%r))))'
            % (name, payload + os.sep))
    return _python(payload, code).split()


def import_cpu(payload, name):
    """CPU seconds of a Python that imports name from payload and exits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    _python(payload, 'import %s' % name)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def measure_imports(bench, rounds, old_checkout=None):
    """{(checkout, module or 'basic'): [CPU seconds of each round]}, interleaved within each round, from one payload
    zip per checkout: 'this', and 'old' (old_checkout's modules that this checkout has too) when given."""
    checkouts = [('this', common.ROOT)] + ([('old', os.path.abspath(old_checkout))] if old_checkout else [])
    names = [BASICS] + ['ansible_collections.baremetal.lifecycle.plugins.modules.%s' % name for name in modules()
                        if all(name in modules(root) for _checkout, root in checkouts)]
    runs = []
    for checkout, root in checkouts:
        payload = payload_zip(os.path.join(bench.dir, 'payload-%s.zip' % checkout), root)
        for name in names if checkout == 'this' else names[1:]:
            elsewhere = imported_elsewhere(payload, name)
            if elsewhere:
                raise common.BenchError('importing %s took %s from outside the payload' % (name, ', '.join(elsewhere)))
            runs.append((checkout, payload, name))
    samples = dict(((checkout, name.split('.')[-1]), []) for checkout, _payload, name in runs)
    for _round in range(rounds):
        for checkout, payload, name in runs:
            samples[checkout, name.split('.')[-1]].append(import_cpu(payload, name))
    return samples


# Run in a fresh Python: recursive_finder of one module, as ansible-playbook builds its payload (ansible-core 2.19:
# ansible/executor/module_common.py); prints [CPU seconds, [[file in the zip, bytes]...]].
PAYLOAD_BUILD = '''
import datetime, io, json, sys, time, zipfile
from ansible._internal._ansiballz import _builder
from ansible.executor import module_common
from ansible.plugins.loader import init_plugin_loader
collections, fqn, path = sys.argv[1:4]
init_plugin_loader([collections])
with open(path, "rb") as handle:
    data = handle.read()
payload = zipfile.ZipFile(io.BytesIO(), "w", compression=zipfile.ZIP_DEFLATED)
started = time.process_time()
module_common.recursive_finder(fqn.rsplit(".", 1)[1], fqn, data, payload, datetime.datetime(2020, 1, 1),
                               _builder.ExtensionManager.create(task_vars={}))
print(json.dumps([time.process_time() - started, [[info.filename, info.file_size] for info in payload.infolist()]]))
'''
BASICS_MODULE = 'from ansible.module_utils.basic import AnsibleModule\n\nAnsibleModule(argument_spec={}).exit_json()\n'


def payload_build(collections, fqn, path):
    """(CPU seconds of recursive_finder for the module fqn at path, {file in the payload: bytes})."""
    process = subprocess.run([sys.executable, '-c', PAYLOAD_BUILD, collections, fqn, path], capture_output=True,
                             text=True, check=False)
    if process.returncode:
        raise common.BenchError('building the payload of %s failed (this measures ansible-core 2.19\'s '
                                'recursive_finder): %s' % (fqn, process.stderr[-2000:]))
    cpu, files = json.loads(process.stdout)
    return cpu, dict(files)


def measure_payloads(bench, rounds, names, old_checkout=None):
    """{(checkout, module or 'basics'): [(CPU s, collection files, collection bytes) of each round]}, the checkouts
    and modules interleaved within each round."""
    checkouts = [('this', bench)] + ([('old', bench.of_checkout(old_checkout))] if old_checkout else [])
    basics = bench.write('bench_basics.py', BASICS_MODULE)
    runs = [('this', 'basics', bench.collections, 'ansible.modules.bench_basics', basics)]
    for checkout, view in checkouts:
        runs += [(checkout, name, view.collections, '%s.plugins.modules.%s' % (COLLECTION.replace('/', '.'), name),
                  os.path.join(view.checkout, 'plugins', 'modules', name + '.py')) for name in names]
    samples = dict(((checkout, name), []) for checkout, name, _collections, _fqn, _path in runs)
    for _round in range(rounds):
        for checkout, name, collections, fqn, path in runs:
            cpu, files = payload_build(collections, fqn, path)
            ours = [size for member, size in files.items() if member.startswith(COLLECTION + '/')]
            samples[checkout, name].append((cpu, len(ours), sum(ours)))
    return samples


def report_payloads(samples):
    basics = statistics.median(cpu for cpu, _files, _bytes in samples['this', 'basics'])
    old = any(checkout == 'old' for checkout, _name in samples)
    rows = []
    for name in [name for checkout, name in samples if checkout == 'this']:
        row = (name,)
        for checkout in ('this', 'old') if old else ('this',):
            values = samples.get((checkout, name)) or samples['this', name]
            cpu = statistics.median(value[0] for value in values)
            row += ('%.3f' % cpu, '%.3f' % (cpu - basics), '%d' % values[0][1], '{:,}'.format(values[0][2]))
        rows.append(row)
    headers = ('building the payload', 'CPU s', 'above the basics', 'collection files', 'collection bytes')
    if old:
        headers += ('old CPU s', 'old above', 'old files', 'old bytes')
    print(common.table(headers, rows))


def report_imports(samples):
    basics = statistics.median(samples['this', 'basic'])
    old = dict((name, values) for (checkout, name), values in samples.items() if checkout == 'old')
    rows = []
    for (checkout, name), values in sorted(samples.items(), key=lambda item: -statistics.median(item[1])):
        if checkout == 'this':
            row = (name, '%.3f' % statistics.median(values), '%.2fx' % (statistics.median(values) / basics))
            if old:
                before = old.get(name, samples['this', 'basic'])
                row += ('%.3f' % statistics.median(before), '%.2fx' % (statistics.median(before) / basics))
            rows.append(row)
    headers = ('importing', 'median CPU s', 'vs basics (target <= 1.6x)')
    print(common.table(headers + (('old checkout CPU s', 'old vs basics') if old else ()), rows))


def report(samples):
    baseline = statistics.median(samples['endpoint'])
    rows = [(name, '%.3f' % statistics.median(values), '%.2fx' % (statistics.median(values) / baseline),
             '%.2fx' % (statistics.median(values) / statistics.median(samples[FLOORS[0][0]])),
             '%.3f-%.3f' % (min(values), max(values))) for name, values in samples.items()]
    print(common.table(('one baremetal_node_info process', 'median s', 'vs endpoint', 'vs basics', 'range s'), rows))


def main():
    options = common.rounds_options(__doc__, old_checkout=True)
    with common.ironic(options.ironic_venv) as bench:
        samples = measure(bench, options.rounds)
        imports = measure_imports(bench, options.rounds, options.old_checkout)
        slowest = sorted((name for checkout, name in imports if checkout == 'this' and name != 'basic'),
                         key=lambda name: -statistics.median(imports['this', name]))[:3]
        payloads = measure_payloads(bench, options.rounds, slowest, options.old_checkout)
    report(samples)
    report_imports(imports)
    report_payloads(payloads)


if __name__ == '__main__':
    main()
