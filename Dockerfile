# syntax=docker/dockerfile:1
#
# addnorm's image. Three stages: `base` (Python, CPU-only torch, addnorm), `jupyter` (base plus
# JupyterLab, for the notebooks) and `api` (the grading service; the default target, last).
#
#   docker build -t addnorm .                      # the service
#   docker build --target jupyter -t addnorm-lab . # JupyterLab with the notebooks
#
# What the grading sandbox needs from the container: nothing beyond Docker's defaults. The service
# applies its layers itself to each grading child (rlimits, PR_SET_NO_NEW_PRIVS, Landlock, a
# seccomp allowlist, a fresh session; see api/grading/sandbox.py). None of them needs a capability:
# seccomp and Landlock are built for unprivileged processes once no_new_privs is set, and Docker's
# default seccomp profile allows the Landlock syscalls (moby/moby#43199, Docker Engine 23+). So it
# runs in a default, unprivileged container, as a non-root user, with every capability dropped
# (see docker-compose.yml). No --privileged, no --cap-add, no seccomp=unconfined.
#
# The one layer a non-root service cannot have is the per-slot uid (switching uid needs root); the
# strict profile only requires it when the service runs as root, and every other layer still
# applies. If a layer is missing on the host (an old kernel without Landlock), the service refuses
# to start unless ADDNORM_SANDBOX names a weaker profile; /health shows the profile in force.

FROM python:3.11-slim AS base

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# libseccomp2 is what pyseccomp loads; it is usually already in the base image (apt needs it),
# named here so the dependency is explicit. fonts-noto-cjk: the pages name "Noto Sans CJK SC"
# for Chinese, so a browser or screenshot taken inside the container renders it from a local
# font, never from another origin.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libseccomp2 fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

# CPU-only torch from PyTorch's own index, in its own layer: the default PyPI wheel pulls in CUDA
# and makes the image several GB larger. pyproject pins torch==2.13.0, which 2.13.0+cpu satisfies,
# so the install below keeps this build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

WORKDIR /app
COPY pyproject.toml README.md ./
COPY api/ api/
COPY addnorm_client/ addnorm_client/
# Editable, on purpose: the service finds its content relative to the `api` package (/app), and
# the sandbox hides that directory from grading children with Landlock while granting them
# site-packages. A regular `pip install .` would put `api` inside site-packages, making the
# package directory and the Python libraries one and the same, which the sandbox refuses to
# expose. This is the same layout the tests run against (an editable install in a checkout).
RUN pip install -e .

# Content the service loads at start-up. solutions/ is copied in the api stage only: the jupyter
# image (built from this stage) must not hand learners the worked answers.
COPY exercises/ exercises/
COPY notebooks/ notebooks/

# Python lives in /usr/local, world-readable, which the sandbox needs after it drops privileges.
RUN useradd --uid 10001 --create-home --shell /usr/sbin/nologin addnorm \
    && mkdir /data \
    && chown addnorm:addnorm /data
# The SQLite database lives here; mount a volume on it (a fresh named volume inherits this
# directory's ownership, so the non-root user can write it).
ENV ADDNORM_DATA_DIR=/data
USER addnorm


FROM base AS jupyter

USER root
RUN pip install "jupyterlab>=4.2,<5" "jupytext>=1.16"
USER addnorm
# Copied into the home directory so a named volume mounted here starts with the notebooks and
# keeps the learner's edits across restarts.
RUN cp -r /app/notebooks /home/addnorm/notebooks
WORKDIR /home/addnorm/notebooks
EXPOSE 8888
# The login token comes from JUPYTER_TOKEN in the environment (jupyter_server reads it).
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--ServerApp.root_dir=/home/addnorm/notebooks"]


FROM base AS api

# The worked solutions, served to a learner who has passed an exercise or failed it three times
# (GET /exercises/{slug}/solution). Only in this stage: the jupyter image never holds them, and
# grading children cannot read /app (Landlock).
COPY --chown=root:root solutions/ solutions/
VOLUME ["/data"]
EXPOSE 8000
# python:3.11-slim has no curl; the standard library is enough to ask /health. Healthy means
# the grader pool runs ("ok"), not merely that HTTP answers ("degraded").
HEALTHCHECK --interval=10s --timeout=6s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import json, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=5); assert json.load(r)['status'] == 'ok'"]
CMD ["addnorm", "serve", "--host", "0.0.0.0", "--port", "8000"]
