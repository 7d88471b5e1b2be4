# JupyterLab with Go, GoNB and this repository, ready to run the notebooks in notebooks/.
#
#   docker build -t sgformer-notebooks .
#   docker run --rm -p 8888:8888 sgformer-notebooks     # then open the URL it prints
#
# Binder (mybinder.org) builds binder/Dockerfile, a copy of this file (scripts/notebooks.sh
# checks that they are equal), with the repository root as the build context.
#
# The installation itself is scripts/setup-notebooks.sh, the same script CI runs before
# executing the notebooks, so CI proves these steps; this file only adds Go and the repository.
#
# Backends: the image installs XLA's CPU plugin (sgformer install-xla, pinned, from PyPI), which
# the notebooks then run on; `%env GOMLX_BACKEND go` in a notebook selects GoMLX's pure-Go
# backend instead.

# The Go toolchain, pinned, taken from the official image.
FROM docker.io/library/golang:1.26.8-bookworm AS go

# JupyterLab, pinned (https://quay.io/repository/jupyter/base-notebook?tab=tags).
FROM quay.io/jupyter/base-notebook:2025-03-14

COPY --from=go /usr/local/go /usr/local/go
ENV GOROOT=/usr/local/go \
    GOPATH=/home/${NB_USER}/go \
    GOFLAGS=-buildvcs=false
ENV PATH=${GOPATH}/bin:${GOROOT}/bin:${PATH}

# Debian/Ubuntu packages (a C compiler for cgo), as root; then GoNB and its helpers, as the
# notebook user, with gopls for completion in JupyterLab.
USER root
COPY scripts/setup-notebooks.sh /tmp/setup-notebooks.sh
RUN /tmp/setup-notebooks.sh --only system && rm -rf /var/lib/apt/lists/*
USER ${NB_UID}
RUN /tmp/setup-notebooks.sh --only user --interactive

# The repository, with its modules downloaded and packages compiled into the build cache, so
# that the first cell of a notebook does not wait for them.
COPY --chown=${NB_UID}:${NB_GID} . /home/${NB_USER}/sgformer
WORKDIR /home/${NB_USER}/sgformer
RUN go mod download && go build ./... && go run ./cmd/sgformer install-xla
