#!/bin/sh
# iocage runs this inside the jail after `iocage update`, once it has copied the new artifact's
# overlay (with the new tengig wheel) onto the jail and reinstalled the packages; it stops the
# jail's services before and starts them again after. tengig's results, API keys and rc.conf
# settings stay as they were.
set -eu

R="${TENGIG_JAIL_ROOT-}"   # empty in the jail; tests point it at a scratch copy of the jail's files
"${R}/usr/local/libexec/tengig-install-wheel"
