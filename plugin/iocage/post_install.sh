#!/bin/sh
# iocage runs this once, as root inside the new jail, after it installed the manifest's packages and
# copied overlay/ onto the jail. It creates the service user, installs tengig into its virtualenv
# from the bundled wheel, makes an API key for the panel, then enables and starts `tengig serve`.
set -eu

R="${TENGIG_JAIL_ROOT-}"   # empty in the jail; tests point it at a scratch copy of the jail's files
user=tengig
dbdir=/var/db/tengig
etcdir=/usr/local/etc/tengig
venv=/usr/local/share/tengig/venv
keyfile=/root/tengig-api-key
port=8610                  # tengig_port's default in /usr/local/etc/rc.d/tengig

# The service user: no password, no login shell, no home of its own.
if ! pw usershow -n "${user}" >/dev/null 2>&1; then
	pw useradd -n "${user}" -c "tengig service" -d /nonexistent -s /usr/sbin/nologin -w no
fi

# Its results and API keys, and the TrueNAS API key file's directory.
mkdir -p "${R}${dbdir}" "${R}${etcdir}"
chown "${user}:${user}" "${R}${dbdir}" "${R}${etcdir}"
chmod 750 "${R}${dbdir}" "${R}${etcdir}"

"${R}/usr/local/libexec/tengig-install-wheel"

# An API key for the panel and `tengig call`, made as the service user (whose database it goes in).
# The plain key exists only in the root-only file below (tengig keeps a hash).
if [ ! -s "${R}${keyfile}" ]; then
	key=$(env TENGIG_DB="${dbdir}/results.sqlite3" \
		chroot -u "${user}" -g "${user}" / "${venv}/bin/python" -m tengig.cli.main apikey create admin)
	(umask 077 && printf '%s\n' "${key}" > "${R}${keyfile}")
fi

sysrc tengig_enable=YES
service tengig start

info="tengig serves its panel and API on port ${port} of this jail (the plugin's admin portal).
Log in as root with the API key in ${keyfile}; to read it, on the TrueNAS shell:
  iocage exec $(hostname) cat ${keyfile}
To let tengig act on this TrueNAS (NICs, LAGG, mesh), give it the TrueNAS address and an API key
made in the TrueNAS UI (Settings > API Keys):
  iocage set -P truenas_url=ws://<the TrueNAS address> $(hostname)
  iocage set -P truenas_api_key=<the key> $(hostname)"
printf '%s\n' "${info}" > "${R}/root/PLUGIN_INFO"
printf '%s\n' "${info}"
