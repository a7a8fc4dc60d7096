# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import spelling


def test_a_misspelled_name_is_told_the_closest_choices_and_a_name_close_to_none_nothing():
    assert spelling.did_you_mean('size_bg', ('raid_level', 'size_gb')) == " (did you mean 'size_gb'?)"
    assert spelling.did_you_mean('zzz', ('raid_level', 'size_gb')) == ''
    assert spelling.closest('ProcTurbo', {'ProcTurboMode': {}, 'ProcTurbo2': {}, 'BootMode': {}}, n=3) == [
        'ProcTurbo2', 'ProcTurboMode']
