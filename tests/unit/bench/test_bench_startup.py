# -*- coding: utf-8 -*-
"""bench_startup's payload is AnsiballZ's: what a module imports on a host comes from one deflated zip."""

import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import bench_startup  # noqa: E402

NODE = 'ansible_collections.baremetal.lifecycle.plugins.modules.baremetal_node'


def test_the_payload_holds_ansible_module_utils_and_the_collection_with_ansiballz_package_files(tmp_path):
    payload = bench_startup.payload_zip(str(tmp_path / 'payload.zip'), ROOT)
    with zipfile.ZipFile(payload) as archive:
        names = archive.namelist()
        assert archive.read('ansible/__init__.py') == archive.read('ansible/module_utils/__init__.py') == \
            bench_startup.ANSIBLE_INIT.encode()
        collection = 'ansible_collections/baremetal/lifecycle'
        for package in ('ansible_collections', 'ansible_collections/baremetal', collection, collection + '/plugins',
                        collection + '/plugins/modules', collection + '/plugins/module_utils'):
            assert archive.read(package + '/__init__.py') == b''
        assert set(info.compress_type for info in archive.infolist()) == {zipfile.ZIP_DEFLATED}
    assert len(names) == len(set(names))
    assert 'ansible/module_utils/basic.py' in names
    assert 'ansible_collections/baremetal/lifecycle/plugins/modules/baremetal_node.py' in names
    assert 'ansible_collections/baremetal/lifecycle/plugins/module_utils/task/module.py' in names
    assert not [name for name in names if '__pycache__' in name or not name.endswith('.py')]


def test_a_module_and_the_basics_import_every_file_from_the_payload(tmp_path):
    payload = bench_startup.payload_zip(str(tmp_path / 'payload.zip'), ROOT)
    assert bench_startup.imported_elsewhere(payload, bench_startup.BASICS) == []
    assert bench_startup.imported_elsewhere(payload, NODE) == []


def test_a_file_missing_from_the_payload_is_found(tmp_path):
    payload = bench_startup.payload_zip(str(tmp_path / 'payload.zip'), ROOT)
    missing = str(tmp_path / 'missing.zip')
    with zipfile.ZipFile(payload) as whole, zipfile.ZipFile(missing, 'w') as part:
        for info in whole.infolist():
            if info.filename != 'ansible/module_utils/basic.py':
                part.writestr(info, whole.read(info))
    assert bench_startup.imported_elsewhere(missing, bench_startup.BASICS) == [bench_startup.BASICS]


def test_building_the_payload_zips_what_the_module_imports_as_ansible_core_does(tmp_path):
    namespace = tmp_path / 'ansible_collections' / 'baremetal'
    namespace.mkdir(parents=True)
    (namespace / 'lifecycle').symlink_to(ROOT)
    cpu, files = bench_startup.payload_build(str(tmp_path), NODE.replace('baremetal_node', 'baremetal_node_info'),
                                             os.path.join(ROOT, 'plugins', 'modules', 'baremetal_node_info.py'))
    assert cpu > 0
    assert 'ansible/module_utils/basic.py' in files
    assert 'ansible_collections/baremetal/lifecycle/plugins/module_utils/task/module.py' in files
    # A file that the module's imports never reach is not shipped.
    assert 'ansible_collections/baremetal/lifecycle/plugins/module_utils/node/record_writes.py' not in files
