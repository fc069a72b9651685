import sys

from ._peer import main

sys.exit(main())
