"""The deployment files agree with the server that really ships.

No Docker engine or Kubernetes cluster runs here, so these tests check what can
be checked without one: the YAML parses into well-formed objects, every flag
and CACAO_* variable they set is one that ``cacao-server --help`` lists and the
server's own parser accepts, and the ports, probes, labels and names line up
(in the Kubernetes manifests, the Dockerfile and the compose file).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from cacaoai.server.asgi import HEALTH_PATH
from cacaoai.server.lifecycle import FINAL_REPORT_S
from cacaoai.server.options import DEFAULT_HTTP_PORT, DEFAULT_PORT, OPTIONS, ServerOptions, parse_args
from cacaoai.server.security import Tokens

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def server_help() -> str:
    entry_point = Path(sys.executable).parent / "cacao-server"
    return subprocess.run([str(entry_point), "--help"], capture_output=True, text=True,
                          check=True).stdout


def manifests() -> dict[str, dict]:
    """Kind -> object, of every document under deploy/k8s."""
    objects = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            assert {"apiVersion", "kind", "metadata"} <= set(doc), path
            assert doc["metadata"]["name"] == "cacao-server", path
            objects[doc["kind"]] = doc
    return objects


def container() -> dict:
    (only,) = manifests()["Deployment"]["spec"]["template"]["spec"]["containers"]
    return only


def container_options() -> tuple[str, int, ServerOptions]:
    """What the Deployment's container would run with: its args and env through the real parser."""
    env = {e["name"]: e["value"] for e in container()["env"]}
    return parse_args(container()["args"], env)


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines()]
    return [tuple(line.split(None, 1)) for line in lines if line and not line.startswith("#")]


def dockerfile_env(instructions: list[tuple[str, str]]) -> dict[str, str]:
    """The variables the image sets (its ENV instructions)."""
    return dict(pair.split("=", 1) for key, value in instructions if key == "ENV"
                for pair in shlex.split(value))


def test_the_manifests_are_a_deployment_a_headless_service_and_an_autoscaler():
    assert set(manifests()) == {"Deployment", "Service", "HorizontalPodAutoscaler"}
    assert manifests()["Service"]["spec"]["clusterIP"] == "None"


def test_every_flag_and_variable_the_deployment_sets_is_one_the_server_has(server_help):
    flags = set(re.findall(r"--[a-z][a-z-]*", server_help))
    variables = set(re.findall(r"CACAO_[A-Z_]+", server_help))
    used_flags = [a for a in container()["args"] if a.startswith("--")]
    used_variables = [e["name"] for e in container()["env"] if e["name"].startswith("CACAO_")]
    assert used_flags and used_variables
    assert set(used_flags) <= flags, set(used_flags) - flags
    assert set(used_variables) <= variables, set(used_variables) - variables
    host, port, options = container_options()  # the real parser accepts every value
    assert host == "0.0.0.0" and options.metrics_port is not None


def test_probes_ports_and_grace_match_the_server_settings():
    deployment = manifests()["Deployment"]
    _, port, options = container_options()
    ports = {p["name"]: p["containerPort"] for p in container()["ports"]}
    assert ports == {"grpc": port, "http": options.http_port, "metrics": options.metrics_port}
    for probe in ("readinessProbe", "livenessProbe"):
        # the HTTP side's health: Kubernetes' gRPC probes cannot speak TLS
        check = container()[probe]["httpGet"]
        assert (check["path"], check["port"]) == (HEALTH_PATH, "http")
        assert check["scheme"] == ("HTTPS" if options.tls else "HTTP")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] > options.grace_s
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == options.metrics_port
    cores = float(container()["resources"]["requests"]["cpu"])
    assert cores >= options.max_searches * options.search_threads  # a core per search thread


def mebibytes(quantity: str) -> float:
    """A Kubernetes memory quantity (512Mi, 1Gi, 536870912) in MiB."""
    units = {"Ki": 2**-10, "Mi": 1, "Gi": 2**10, "K": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", quantity).groups()
    return float(number) * (units[unit] if unit else 2**-20)


def test_the_pods_memory_is_the_servers_base_its_memory_budget_and_headroom():
    """The arithmetic of docs/operations.md: request >= base RSS + budget + a
    quarter of the budget, and limit = request (a Guaranteed pod)."""
    from cacaoai.server.memory import BASE_RSS_MIB, HEADROOM_FRACTION, pod_memory_mib

    _, _, options = container_options()
    assert options.memory_budget_mb > 0  # the manifest sets a budget
    resources = container()["resources"]
    request, limit = (mebibytes(resources[k]["memory"]) for k in ("requests", "limits"))
    needed = pod_memory_mib(options.memory_budget_mb)
    assert needed == BASE_RSS_MIB + options.memory_budget_mb + HEADROOM_FRACTION * options.memory_budget_mb
    assert needed <= request == limit
    assert resources["requests"]["cpu"] == resources["limits"]["cpu"]
    # the server's default budget fits a pod of the same size
    assert pod_memory_mib(ServerOptions().memory_budget_mb) <= request


def test_the_service_and_autoscaler_point_at_the_deployment():
    objects = manifests()
    deployment, service, hpa = (objects[k] for k in
                                ("Deployment", "Service", "HorizontalPodAutoscaler"))
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    port_names = {p["name"] for p in container()["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def test_the_dockerfile_runs_a_real_entry_point_with_real_variables(server_help):
    instructions = dockerfile_instructions()
    env = dockerfile_env(instructions)
    cacao = {k: v for k, v in env.items() if k.startswith("CACAO_")}
    assert cacao and set(cacao) <= set(re.findall(r"CACAO_[A-Z_]+", server_help))
    _, port, options = parse_args([], cacao)
    exposed = {int(p) for key, value in instructions if key == "EXPOSE" for p in value.split()}
    assert exposed == {port, options.http_port, options.metrics_port}
    (entry,) = [value for key, value in instructions if key == "ENTRYPOINT"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert eval(entry)[0] in scripts  # a JSON list: exec form, so SIGTERM reaches the server
    assert [key for key, _ in instructions].count("FROM") == 2  # no compiler in the image


def seconds(duration: str) -> float:
    """A compose duration ("15s", "1m30s", "500ms") in seconds."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def compose_service() -> dict:
    (service,) = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"].values()
    return service


def compose_settings() -> tuple[list[str], dict[str, str]]:
    """(cacao-server's arguments, its CACAO_* variables) in the compose file's container."""
    service = compose_service()
    instructions = dockerfile_instructions()
    env = {**dockerfile_env(instructions), **service.get("environment", {})}
    (entry,) = [value for key, value in instructions if key == "ENTRYPOINT"]
    program, *args = [*json.loads(entry), *service.get("command", [])]
    assert program == "cacao-server"
    return args, {k: str(v) for k, v in env.items() if k.startswith("CACAO_")}


def test_the_compose_file_serves_the_board_page_on_the_servers_default_ports(server_help):
    """What ``docker compose -f deploy/compose.yaml up`` runs: the image of
    deploy/Dockerfile, its entry point with the service's command, its variables
    with the service's own over them, through the server's parser. The container's
    gRPC and HTTP ports are published on the host's loopback at the server's
    default ports (the addresses the README gives), the health check asks the
    HTTP side's /healthz, and a stop waits longer than the drain and the grace."""
    service = compose_service()
    build = service["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    args, cacao = compose_settings()
    assert set(cacao) <= set(re.findall(r"CACAO_[A-Z_]+", server_help))
    host, port, options = parse_args(args, cacao)
    assert host == "0.0.0.0"  # inside the container: reachable through the published ports
    published = {}
    for mapping in service["ports"]:
        address, outside, inside = mapping.split(":")
        assert address == "127.0.0.1", mapping  # no TLS, no tokens: the host's loopback only
        published[int(inside)] = int(outside)
    assert published == {port: DEFAULT_PORT, options.http_port: DEFAULT_HTTP_PORT}
    check = " ".join(service["healthcheck"]["test"])
    assert f"http://127.0.0.1:{options.http_port}{HEALTH_PATH}" in check, check
    assert service["stop_signal"] == "SIGTERM"
    assert seconds(service["stop_grace_period"]) > options.drain_s + options.grace_s + FINAL_REPORT_S


def test_the_nginx_template_fits_the_server_limits():
    text = (DEPLOY / "nginx" / "nginx.conf").read_text()
    size, unit = re.search(r"client_max_body_size (\d+)([km]);", text).groups()
    body = int(size) * 1024 ** {"k": 1, "m": 2}[unit]
    assert body == ServerOptions().max_message_bytes
    read_timeout = int(re.search(r"grpc_read_timeout (\d+)s;", text).group(1))
    assert read_timeout > ServerOptions().max_time_s
    assert "grpc_pass grpc://cacao;" in text and "include @PREFIX@/upstream.conf;" in text
    # the HTTP side: the Connect API and the page, proxied to the replicas' HTTP ports
    assert "proxy_pass http://cacao_http;" in text and "include @PREFIX@/http_upstream.conf;" in text
    assert "listen @HTTP_LISTEN@;" in text and "proxy_buffering off;" in text
    assert [int(n) * 1024 for n in re.findall(r"client_max_body_size (\d+)k;", text)] == [body, body]
    assert int(re.search(r"proxy_read_timeout (\d+)s;", text).group(1)) > ServerOptions().max_time_s


def test_tls_and_tokens_come_from_the_example_secrets(tmp_path):
    """The files the Deployment's CACAO_TLS_* and CACAO_AUTH_TOKENS name are the
    keys of the Secrets it mounts, which deploy/k8s/examples/secrets.yaml shows
    (and whose tokens the server can read)."""
    secrets = {doc["metadata"]["name"]: doc for doc in
               yaml.safe_load_all((DEPLOY / "k8s" / "examples" / "secrets.yaml").read_text())}
    assert all(doc["kind"] == "Secret" for doc in secrets.values())
    pod = manifests()["Deployment"]["spec"]["template"]["spec"]
    volumes = {v["name"]: v["secret"] for v in pod["volumes"]}
    mounts = {m["mountPath"]: volumes[m["name"]] for m in container()["volumeMounts"]}
    assert all(m["readOnly"] for m in container()["volumeMounts"])
    _, _, options = container_options()
    files = {}
    for path in (options.tls_cert, options.tls_key, options.auth_tokens):
        folder, _, name = path.rpartition("/")
        secret = mounts[folder]
        key = next((i["key"] for i in secret.get("items", []) if i["path"] == name), name)
        files[path] = secrets[secret["secretName"]]["stringData"][key]
    assert secrets[volumes["tls"]["secretName"]]["type"] == "kubernetes.io/tls"
    assert "CERTIFICATE" in files[options.tls_cert] and "PRIVATE KEY" in files[options.tls_key]
    (tmp_path / "tokens").write_text(files[options.auth_tokens])
    roles = sorted(role for role, _ in Tokens.load(str(tmp_path / "tokens")).roles.values())
    assert roles == ["all", "rules"]


# --- the deploy files against the options' declaration (cacaoai.server.options) ------

def settings_of(path: Path) -> tuple[str, int, ServerOptions]:
    """What the server that a deploy file runs is set to."""
    if path.name == "compose.yaml":
        return parse_args(*compose_settings())
    if path.name == "Dockerfile":
        env = dockerfile_env(dockerfile_instructions())
        return parse_args([], {k: v for k, v in env.items() if k.startswith("CACAO_")})
    return container_options()


DEPLOY_FILES = [DEPLOY / "Dockerfile", DEPLOY / "compose.yaml", DEPLOY / "k8s" / "deployment.yaml"]
VARIABLES = {o.env: o for o in OPTIONS if o.flag}


@pytest.mark.parametrize("path", [*DEPLOY_FILES, *sorted((DEPLOY / "k8s").rglob("*.yaml"))],
                         ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_variable_a_deploy_file_names_is_a_declared_option(path):
    """Comments included: a renamed option leaves no stale name behind."""
    named = set(re.findall(r"CACAO_[A-Z_]+", path.read_text()))
    assert named <= set(VARIABLES), named - set(VARIABLES)


@pytest.mark.parametrize("path", DEPLOY_FILES, ids=lambda p: p.name)
def test_a_value_a_deploy_comment_gives_a_variable_is_the_one_its_server_runs_with(path):
    """``CACAO_GRACE (5 s)``, ``CACAO_MEMORY_BUDGET_MB 320 Mi``: the number after a
    variable in a comment is its value in the server the file runs."""
    host, port, options = settings_of(path)
    values = {"host": host, "port": port, **vars(options)}
    comments = "\n".join(line.partition("#")[2] for line in path.read_text().splitlines())
    quoted = re.findall(r"(CACAO_[A-Z_]+)(?:,|:| \(| )\s*(\d+(?:\.\d+)?)", comments)
    for variable, number in quoted:
        assert float(number) == values[VARIABLES[variable].name], (variable, number)


def test_the_settings_the_operations_guide_quotes_are_the_deploy_files():
    """docs/operations.md's ``CACAO_X=value`` are what a deploy file sets."""
    set_here = {*dockerfile_env(dockerfile_instructions()).items(),
                *((k, str(v)) for k, v in compose_service().get("environment", {}).items()),
                *((e["name"], str(e["value"])) for e in container()["env"])}
    quoted = re.findall(r"`(CACAO_[A-Z_]+)=([^`]*)`", (ROOT / "docs" / "operations.md").read_text())
    assert quoted and set(quoted) <= set_here, set(quoted) - set_here
