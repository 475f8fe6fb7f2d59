"""Stand-ins that real middlewared needs in a test, next to the plugins it loads for real (see launch.py).

Each one replaces a TrueNAS part that cannot run here (PAM, the users database, the system state
machine) with the smallest thing that answers the same calls; the models they publish are
middlewared's own, so a client sees TrueNAS's schemas."""
from __future__ import annotations

import copy
import hmac
import socket

from scram_standin import scram_step


def install_standins(middleware, args) -> None:
    from middlewared.api import api_method
    from middlewared.api.current import AuthLoginExArgs, AuthLoginExResult
    from middlewared.auth import SessionManagerCredentials
    from middlewared.service import Service, private

    username, _, password = args.user.partition(":")
    api_key = args.api_key

    class TestAdminCredentials(SessionManagerCredentials):
        """Full admin, as TrueNAS gives root on its unix socket and a FULL_ADMIN user after login."""
        is_user_session = True

        def __init__(self, name):
            self.user = {"username": name, "privilege": {"roles": {"FULL_ADMIN"}}}

        def authorize(self, method, resource):
            return True

        def has_role(self, role):
            return True

        def dump(self):
            return {"username": self.user["username"]}

    def log_in(app, name):
        app.authenticated_credentials = TestAdminCredentials(name)
        try:  # 25.x keeps a flag beside the credentials; 26 derives it from them (a read-only property)
            app.authenticated = True
        except AttributeError:
            pass

    class SystemService(Service):  # stand-in
        class Config:
            namespace = "system"
            private = True

        @private
        async def state(self):
            return "READY"

        @private
        async def ready(self):
            return True

        @private
        async def version(self):  # as TrueNAS 25.04+ says it (its system plugin reads /etc/version)
            return f"TrueNAS-{args.version}"

        @private
        async def is_ha_capable(self):  # one controller: no HA
            return False

        @private
        async def is_enterprise(self):
            return False

        @private
        async def reload_cli(self):
            return None

    class SystemGeneralService(Service):  # stand-in
        class Config:
            namespace = "system.general"
            private = True

        @private
        async def get_ui_allowlist(self):
            return []

    from middlewared.api import current as api_current

    choices_args = getattr(api_current, "AuthMechanismChoicesArgs", None) or api_current.AuthMechChoicesArgs
    choices_result = getattr(api_current, "AuthMechanismChoicesResult", None) or api_current.AuthMechChoicesResult
    logins: list[str] = []  # the mechanism of every login_ex call, in order (auth.standin_logins)

    class AuthService(Service):  # stand-in
        """auth.login_ex for one test user (PASSWORD_PLAIN) and one API key (API_KEY_PLAIN; on 26 also SCRAM,
        scram_standin.py), and auth.mechanism_choices: what this version's own authenticator level offers."""

        class Config:
            namespace = "auth"
            cli_namespace = "auth"

        @api_method(choices_args, choices_result, authentication_required=False)
        async def mechanism_choices(self):
            from middlewared.utils.auth import CURRENT_AAL

            return [str(m) for m in CURRENT_AAL.level.mechanisms]

        @private
        async def standin_logins(self):
            return list(logins)

        @api_method(AuthLoginExArgs, AuthLoginExResult, cli_private=True, authentication_required=False,
                    pass_app=True)
        async def login_ex(self, app, data):
            mechanism = data["mechanism"]
            logins.append(mechanism)
            ok = False
            if mechanism == "SCRAM" and api_key:
                answer, user = scram_step(app, data, username, api_key)
                if user is not None:
                    log_in(app, user)
                return answer
            if mechanism == "PASSWORD_PLAIN":
                ok = data["username"] == username and hmac.compare_digest(data["password"], password)
            elif mechanism == "API_KEY_PLAIN" and api_key:
                ok = data["username"] == username and hmac.compare_digest(data["api_key"], api_key)
            if not ok:
                return {"response_type": "AUTH_ERR"}
            log_in(app, data["username"])
            return {"response_type": "SUCCESS", "user_info": None, "authenticator": "LEVEL_1"}

    class SystemVendorService(Service):  # stand-in
        class Config:
            namespace = "system.vendor"
            private = True

        @private
        async def is_vendored(self):  # 26 asks at start: a plain TrueNAS, not a vendor's (HexOS) build
            return False

    services = [SystemService(middleware), SystemGeneralService(middleware), SystemVendorService(middleware),
                AuthService(middleware)]
    for service in services:
        middleware.add_service(service)
    if hasattr(middleware, "_resolve_methods"):  # 25.x's legacy schemas; 26 has none
        middleware._resolve_methods(services, [])
    direct_tcp_origin()

    async def unix_socket_is_root(middleware_, app):
        if app.origin is not None and app.origin.is_unix_family:
            log_in(app, "root")

    middleware.register_hook("core.on_connect", unix_socket_is_root)


def direct_tcp_origin() -> None:
    """26 finds a TCP connection's addresses through sock_diag (truenas_pynetif, stubbed here: every TCP
    connection would be closed at once). Stand-in: the socket's own peer and local addresses, which is
    what sock_diag answers for a direct connection (nginx's X-Real-Remote-* headers are not used here)."""
    try:
        from middlewared.utils import origin
    except ImportError:
        return
    if not hasattr(origin, "get_tcp_ip_info") or not hasattr(origin, "netlink_diag"):
        return  # 25.x reads the peer itself

    def get_tcp_ip_info(sock, request):
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        remote, local = sock.getpeername(), sock.getsockname()
        return origin.ConnectionOrigin(family=sock.family, loc_addr=local[0], loc_port=local[1],
                                       rem_addr=remote[0], rem_port=remote[1])

    origin.get_tcp_ip_info = get_tcp_ip_info


def install_network_standins(middleware) -> None:
    """What TrueNAS's own ``network`` and ``interface`` plugins call in the parts of TrueNAS a test cannot
    run (launch.py --network): HA/failover (a single controller), the chassis (not iX hardware), apps,
    containers, VMs, RDMA and directory services (none), services and /etc files (the etc plugin
    renders from its own templates and restarts daemons; here nothing is rendered: TrueNAS's dns.sync
    still writes /etc/resolv.conf, which the launcher made this test's own file), keepalived (no VRRP
    without HA). The IPv6 autoconf sysctl is written as TrueNAS's tunable plugin writes it (the
    process runs in the NAS's network namespace, where /proc/sys/net is the NAS's)."""
    from middlewared.service import Service, private

    def service(namespace, **methods):
        config = type("Config", (), {"namespace": namespace, "private": True})
        return type(f"StandIn{namespace.title().replace('.', '')}Service", (Service,),
                    {"Config": config, **{name: private(fn) for name, fn in methods.items()}})

    nothing, no_list, false, true = constant(None), constant([]), constant(False), constant(True)

    class _Done:  # what service.control answers: a job that is already over
        async def wait(self, raise_error=False):
            return True

        def wait_sync(self, raise_error=False):
            return True

    async def control(self, verb, name, *args):
        return _Done()

    def set_sysctl(self, name, value):
        path = "/proc/sys/" + name.replace(".", "/")
        with open(path, "w") as f:
            f.write(str(value))

    classes = [
        service("failover", licensed=false, status=constant("SINGLE"), node=constant("MANUAL"),
                ha_mode=constant(("MANUAL", "MANUAL")), config=constant({"disabled": True}),
                call_remote=nothing),
        service("failover.internal_interface", detect=no_list, sync=nothing),
        service("truenas", get_chassis_hardware=constant("TRUENAS-UNKNOWN"), is_ix_hardware=false),
        service("vrrpthread", set_non_crit_ifaces=nothing),
        service("vm.device", query=no_list),
        service("virt.global", internal_interfaces=no_list, config=constant({"bridge": None})),
        service("rdma.interface", internal_interfaces=no_list),
        service("docker", config=constant({"pool": None})),
        service("docker.network", interfaces_mapping=no_list),
        service("app", used_host_ips=constant({})),
        service("directoryservices", status=constant({"type": None, "status": None})),
        service("kerberos", check_ticket=nothing),
        service("kerberos.keytab", has_nfs_principal=false),
        service("etc", generate=nothing),
        # 25.10 and later: service.control(VERB, name), a job; 25.04: service.VERB(name), True when done.
        service("service", started=false, control=control, start=true, stop=true, restart=true, reload=true),
        service("zettarepl", update_tasks=nothing),
        service("tunable", set_sysctl=set_sysctl),
    ]
    services = [cls(middleware) for cls in classes]
    for instance in services:
        middleware.add_service(instance)
    if hasattr(middleware, "_resolve_methods"):
        middleware._resolve_methods(services, [])


def constant(value):
    async def answer(self, *args, **kwargs):
        return copy.deepcopy(value)
    return answer
