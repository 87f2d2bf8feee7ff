#!/usr/bin/env python3
"""A trainer that reports progress the way Kubeflow Trainer's clients do (the Kubeflow SDK's
update_trainjob_status, transformers' KubeflowCallback, Trainer's own e2e client): a POST to
$KUBEFLOW_TRAINER_SERVER_URL with the token file's content as a bearer token, TLS verified with
$KUBEFLOW_TRAINER_SERVER_CA_CERT, a JSON body holding trainerStatus. Debian's python3 alone.

It then shows what the server answers to a wrong token and to a malformed body, one line each:
`<case>: <code> <body>`."""
import datetime
import json
import os
import ssl
import sys
import urllib.error
import urllib.request


def post(body: bytes, token: str):
    request = urllib.request.Request(os.environ["KUBEFLOW_TRAINER_SERVER_URL"], data=body, method="POST",
                                     headers={"Authorization": "Bearer " + token,
                                              "Content-Type": "application/json"})
    context = ssl.create_default_context(cafile=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
    try:
        with urllib.request.urlopen(request, context=context, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main() -> int:
    with open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]) as f:
        token = f.read().strip()
    update = {"trainerStatus": {
        "lastUpdatedTime": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "progressPercentage": int(sys.argv[1]) if len(sys.argv) > 1 else 42,
        "estimatedRemainingSeconds": 120,
        "metrics": [{"name": "loss", "value": "0.123"}, {"name": "accuracy", "value": "0.95"}],
    }}
    code, body = post(json.dumps(update).encode(), token)
    print(f"update: {code}", flush=True)
    if code != 200:
        print(body, flush=True)
        return 1
    print("wrong token: %d %s" % post(json.dumps(update).encode(), token[:-4] + "AAAA"), end="", flush=True)
    print("malformed body: %d %s" % post(b'{"trainerStatus": {"progressPercentage": "half"}}', token), end="",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
