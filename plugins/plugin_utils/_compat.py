# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What differs between the ansible-core releases this collection supports (2.16 and later), in one place.

ansible-core 2.19 brought data tagging: strings are trusted as templates or not, and inline vault values decrypt
with the vault secrets of the process. Before it, every string is a template unless wrapped as unsafe, and a vault
value decrypts only with the VaultLib of the loader that read it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextvars
import functools

from ansible.errors import AnsibleError
from jinja2 import pass_context

try:
    from ansible.parsing.vault import EncryptedString as VAULT_TYPE
    from ansible.template import trust_as_template
except ImportError:  # ansible-core 2.16 to 2.18
    from ansible.parsing.yaml.objects import AnsibleVaultEncryptedUnicode as VAULT_TYPE
    from ansible.utils.unsafe_proxy import wrap_var
    trust_as_template = None
    DATA_TAGGING = False
else:
    wrap_var = None
    DATA_TAGGING = True

# The VaultLib of the play, while a filter decorated with with_vault runs (ansible-core 2.16 to 2.18).
_play_vault = contextvars.ContextVar('baremetal_lifecycle_play_vault', default=None)


def trusted_template(text):
    """text, which the collection wrote, templated when used (as every inventory string is before 2.19)."""
    return trust_as_template(text) if DATA_TAGGING else text


def untrusted(value):
    """value, read from Ironic, never templated: untrusted already with data tagging, wrapped as unsafe before."""
    return value if DATA_TAGGING else wrap_var(value)


def vault_value(ciphertext):
    """The value of an inline !vault scalar, decrypted by decrypted()."""
    return VAULT_TYPE(ciphertext=ciphertext) if DATA_TAGGING else VAULT_TYPE(ciphertext)


def decrypted(value):
    """The plain text of a vault value, with the play's vault secrets."""
    if DATA_TAGGING:
        return str(value)
    if value.vault is None:  # parsed by the collection: the play's vault, set by with_vault
        value.vault = _play_vault.get()
        if value.vault is None:  # its data would be the ciphertext itself
            raise AnsibleError('an inline !vault value was found outside a play: no vault secrets to decrypt it with')
    return value.data


def with_vault(filter_function):
    """filter_function as a filter that can decrypt vault values it parses itself: before 2.19 the play's vault is
    the loader's of the templar running the filter (Jinja's lookup global is that templar's method)."""
    if DATA_TAGGING:
        return filter_function

    @pass_context
    @functools.wraps(filter_function)
    def run(context, *args, **kwargs):
        templar = getattr(context.environment.globals.get('lookup'), '__self__', None)
        token = _play_vault.set(getattr(getattr(templar, '_loader', None), '_vault', None))
        try:
            return filter_function(*args, **kwargs)
        finally:
            _play_vault.reset(token)

    return run
