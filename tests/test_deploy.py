"""The deployment files agree with the server that really ships.

No Docker engine or Kubernetes cluster runs here, so these tests check what can
be checked without one: the YAML parses into well-formed objects, every flag
and CACAO_* variable they set is one that ``cacao-server --help`` lists and the
server's own parser accepts, and the ports, probes, labels and names line up.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from cacaoai.server.asgi import HEALTH_PATH
from cacaoai.server.options import ServerOptions, parse_args
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
    env = dict(pair.split("=", 1) for key, value in instructions if key == "ENV"
               for pair in shlex.split(value))
    cacao = {k: v for k, v in env.items() if k.startswith("CACAO_")}
    assert cacao and set(cacao) <= set(re.findall(r"CACAO_[A-Z_]+", server_help))
    _, port, options = parse_args([], cacao)
    exposed = {int(p) for key, value in instructions if key == "EXPOSE" for p in value.split()}
    assert exposed == {port, options.http_port, options.metrics_port}
    (entry,) = [value for key, value in instructions if key == "ENTRYPOINT"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert eval(entry)[0] in scripts  # a JSON list: exec form, so SIGTERM reaches the server
    assert [key for key, _ in instructions].count("FROM") == 2  # no compiler in the image


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
