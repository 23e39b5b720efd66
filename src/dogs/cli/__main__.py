"""``python -m dogs.cli``: the same as the ``dogs`` command."""

import sys

from dogs.cli import main

sys.exit(main())
