# JupyterLab with Go, GoNB and this repository, ready to run the notebooks in notebooks/: the
# image Binder (mybinder.org) builds from the README's badge, and a local one:
#
#   docker build -t sgformer-notebooks .
#   docker run --rm -p 8888:8888 sgformer-notebooks     # then open the URL it prints
#
# Binder builds this file because the repository has no binder/ folder (with one, Binder would
# read only that folder's files), as the user NB_USER with uid NB_UID that it passes as build
# arguments, and starts Jupyter in WORKDIR.
#
# Debian 12 (bookworm), like the machines CI runs on; Go, pinned, from the Go module proxy
# (scripts/install-go.sh); everything else is scripts/setup-notebooks.sh, the script CI runs
# before executing the notebooks. scripts/binder-test.sh builds this file's steps in a Debian 12
# root made by debootstrap and runs the notebooks in its JupyterLab under headless Chromium.
#
# Backends: the image installs XLA's CPU plugin (sgformer install-xla, pinned, from PyPI), which
# the notebooks then run on; `%env GOMLX_BACKEND go` in a notebook selects GoMLX's pure-Go
# backend instead.
FROM docker.io/library/debian:bookworm-slim

ARG NB_USER=jovyan
ARG NB_UID=1000
ENV USER=${NB_USER} \
    HOME=/home/${NB_USER} \
    LANG=C.UTF-8
ENV GOROOT=/usr/local/go \
    GOPATH=${HOME}/go \
    GOFLAGS=-buildvcs=false \
    SGFORMER_JUPYTER=${HOME}/.cache/sgformer/jupyter
ENV PATH=${SGFORMER_JUPYTER}/bin:${GOPATH}/bin:${GOROOT}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# As root: the notebook user, certificates for the downloads, Go, then the Debian packages the
# setup script asks for (a C compiler for cgo, Python's venv).
USER root
RUN useradd --create-home --uid ${NB_UID} --shell /bin/bash ${NB_USER}
RUN apt-get update && apt-get install --yes --no-install-recommends ca-certificates curl unzip
COPY scripts/install-go.sh scripts/setup-notebooks.sh scripts/jupyter-requirements.txt /tmp/setup/scripts/
COPY scripts/lib/apt.sh /tmp/setup/scripts/lib/
RUN /tmp/setup/scripts/install-go.sh ${GOROOT} && /tmp/setup/scripts/setup-notebooks.sh --only system && rm -rf /var/lib/apt/lists/*

# As the notebook user: the pinned Jupyter, GoNB with gopls, the kernel registered.
USER ${NB_USER}
RUN /tmp/setup/scripts/setup-notebooks.sh --only user --interactive

# The repository, with its modules downloaded, its packages compiled into the build cache (so
# that a notebook's first cell does not wait for them) and XLA's CPU plugin installed.
COPY --chown=${NB_UID} . ${HOME}/sgformer
WORKDIR ${HOME}/sgformer
RUN go mod download && go build ./... && go run ./cmd/sgformer install-xla

EXPOSE 8888
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser"]
