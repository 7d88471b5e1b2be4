#!/usr/bin/python3
"""Builds the image of a Dockerfile into a folder with chroot, and runs it, without Docker: the
steps of the project's Dockerfile replayed in a Debian root that debootstrap made, then its CMD
(scripts/binder-test.sh).

  dockerfile.py build --root FOLDER --base IMAGE [--trust FILE] DOCKERFILE
  dockerfile.py run --root FOLDER [--mount SRC:DST[:ro]]... [-- ARG...]

The folder must hold the root file system of the FROM image. The instructions the project's
Dockerfile uses are supported, as Docker runs them: FROM (one stage, checked against --base),
ARG (its default, or --build-arg), ENV, USER, WORKDIR (created), COPY (--chown, sources in the
context, whose files are those git would commit, less .dockerignore's), RUN (shell form, run by
/bin/sh -c as USER in WORKDIR with the ENV so far), EXPOSE and CMD; anything else is an error
naming its line. /proc, /dev and the host's resolv.conf are mounted into the folder while RUN
steps run, and unmounted after. With --trust FILE, a CA bundle the machine's network needs (one
whose TLS is intercepted), RUN steps find it through SSL_CERT_FILE and the like, as a `docker
build` on that machine would need; the image's own trust store is left as its packages make it.

build writes FOLDER/.dockerfile.json: the image's ENV, USER (uid, gid), WORKDIR and CMD. run
runs the CMD with ARGs (an ARG --NAME=VALUE replaces the CMD's --NAME=..., others are appended)
as `docker run` would (that ENV, user and folder, /proc, /dev and
resolv.conf mounted, and each --mount bound), until it exits or this process is terminated, and
unmounts everything.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TRUST = "/usr/local/share/sgformer-binder-test/ca.crt"  # --trust's copy, in the image
TRUST_VARS = ("SSL_CERT_FILE", "CURL_CA_BUNDLE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO")


class DockerfileError(Exception):
    pass


def instructions(path):
    """The Dockerfile's instructions: (line number, keyword, arguments), continuation lines joined."""
    out, buf, start = [], "", 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        stripped = line.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue
        if not buf:
            start = n
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        buf += stripped
        keyword, _, rest = buf.partition(" ")
        out.append((start, keyword.upper(), rest.strip()))
        buf = ""
    if buf:
        raise DockerfileError(f"{path}:{start}: a continued line with nothing after it")
    return out


def expand(text, env):
    """Docker's substitution of $NAME and ${NAME} (unset: empty)."""
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), ""), text)


def ignored(patterns):
    """A test of a context path (relative, with /) against .dockerignore's patterns, as Docker
    reads them: * and ? within one path element, ** across them, a folder excluding its files."""
    regexes = []
    for p in patterns:
        p = p.strip().strip("/")
        if not p or p.startswith("#"):
            continue
        rx = re.escape(p).replace(r"\*\*", "\0").replace(r"\*", "[^/]*").replace(r"\?", "[^/]").replace("\0", ".*")
        regexes.append(re.compile(rx + "(/.*)?$"))
    return lambda rel: any(r.match(rel) for r in regexes)


def context_files(context):
    """The files of the build context: those git would commit (tracked, or untracked and not
    ignored), as in the clone Binder builds from, less those .dockerignore excludes."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=context,
                            check=True, capture_output=True).stdout.decode().split("\0")
    path = os.path.join(context, ".dockerignore")
    skip = ignored(open(path).read().splitlines() if os.path.exists(path) else [])
    return sorted(f for f in listed if f and not skip(f) and os.path.lexists(os.path.join(context, f)))


class Build:
    def __init__(self, args):
        self.args, self.root = args, os.path.abspath(args.root)
        self.env, self.args_env = {}, dict(kv.split("=", 1) for kv in getattr(args, "build_arg", []))
        self.user, self.workdir, self.cmd = "root", "/", None
        self.mounted = []
        self.trust = {}
        if getattr(args, "trust", None):
            os.makedirs(os.path.dirname(self.chroot_path(TRUST)), exist_ok=True)
            shutil.copy(args.trust, self.chroot_path(TRUST))
            self.trust = {name: TRUST for name in TRUST_VARS}

    def vars(self):
        return {**self.args_env, **self.env}

    def chroot_path(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def passwd(self, user):
        """(uid, gid) of user (a name or a number) in the image's /etc/passwd."""
        for line in open(self.chroot_path("/etc/passwd")):
            f = line.split(":")
            if user in (f[0], f[2]):
                return int(f[2]), int(f[3])
        if user.isdigit():
            return int(user), int(user)
        raise DockerfileError(f"no user {user} in the image's /etc/passwd")

    def mount(self, binds=()):
        """Mounts /dev and /proc, and binds each (source, image path, read-only) of binds."""
        if self.mounted:
            return
        for src, dst, how in (("/dev", "/dev", ["--rbind"]), ("proc", "/proc", ["-t", "proc"])):
            subprocess.run(["mount", *how, src, self.chroot_path(dst)], check=True)
            self.mounted.append(self.chroot_path(dst))
        subprocess.run(["mount", "--make-rslave", self.chroot_path("/dev")], check=True)
        shutil.copy("/etc/resolv.conf", self.chroot_path("/etc/resolv.conf"))
        for src, dst, ro in binds:
            os.makedirs(self.chroot_path(dst), exist_ok=True)
            subprocess.run(["mount", "--bind", src, self.chroot_path(dst)], check=True)
            self.mounted.append(self.chroot_path(dst))
            if ro:
                subprocess.run(["mount", "-o", "remount,bind,ro", self.chroot_path(dst)], check=True)

    def unmount(self):
        for path in reversed(self.mounted):
            subprocess.run(["umount", "-R", "-l", path], check=False)
        self.mounted = []

    def run(self, line, command):
        self.mount()
        uid, gid = self.passwd(self.user)
        env = {"PATH": DEFAULT_PATH, "HOSTNAME": "sgformer-binder-test", **self.trust, **self.args_env, **self.env}
        if "HOME" not in env:
            env["HOME"] = "/root" if uid == 0 else "/"
        script = f"cd {shlex.quote(self.workdir)} && {command}"
        print(f"[dockerfile] line {line}: RUN {command}  (as {self.user}, in {self.workdir})", flush=True)
        began = time.monotonic()
        status = subprocess.run(["chroot", f"--userspec={uid}:{gid}", self.root, "/bin/sh", "-c", script],
                                env=env).returncode
        if status != 0:
            raise DockerfileError(f"line {line}: RUN exited with status {status}")
        print(f"[dockerfile] line {line}: done in {time.monotonic() - began:.0f} s", flush=True)

    def copy(self, line, words):
        chown = None
        while words and words[0].startswith("--"):
            flag = words.pop(0)
            if not flag.startswith("--chown="):
                raise DockerfileError(f"line {line}: COPY {flag} is not supported")
            chown = flag.split("=", 1)[1]
        *sources, dest = words
        uid = gid = 0
        if chown:
            user, _, group = chown.partition(":")
            uid = self.passwd(user)[0] if not user.isdigit() else int(user)
            gid = int(group) if group.isdigit() else uid
        dest = dest if dest.startswith("/") else os.path.join(self.workdir, dest)
        into_dir = dest.endswith("/") or len(sources) > 1 or sources == ["."]
        for src in sources:
            src = os.path.normpath(src)
            chosen = [f for f in self.files if src == "." or f == src or f.startswith(src + "/")]
            if not chosen:
                raise DockerfileError(f"line {line}: COPY {src}: not in the build context")
            for f in chosen:
                rel = f if src == "." else (os.path.basename(f) if f == src else os.path.relpath(f, src))
                target = os.path.join(dest, rel) if into_dir or f != src else dest
                self.put(os.path.join(self.args.context, f), target, uid, gid)

    def put(self, src, target, uid, gid):
        """Copies the file src to target (an image path), creating its folders, owned by uid:gid."""
        parts = target.strip("/").split("/")
        for i in range(1, len(parts)):
            d = self.chroot_path("/" + "/".join(parts[:i]))
            if not os.path.isdir(d):
                os.mkdir(d, 0o755)
                os.chown(d, uid, gid)
        dst = self.chroot_path(target)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
        os.lchown(dst, uid, gid)

    def build(self, path):
        self.files = context_files(self.args.context)
        steps = instructions(path)
        if not steps or steps[0][1] not in ("FROM", "ARG"):
            raise DockerfileError(f"{path}: no FROM")
        froms = [s for s in steps if s[1] == "FROM"]
        if len(froms) != 1 or froms[0][2] != self.args.base:
            raise DockerfileError(f"{path}: want one stage FROM {self.args.base}, got {[s[2] for s in froms]}")
        for line, keyword, rest in steps:
            if keyword == "FROM":
                continue
            if keyword == "ARG":
                name, _, default = rest.partition("=")
                self.args_env.setdefault(name, expand(default, self.vars()))
            elif keyword == "ENV":
                before = self.vars()
                for word in shlex.split(rest):
                    name, eq, value = word.partition("=")
                    if not eq:
                        raise DockerfileError(f"line {line}: ENV {word}: want NAME=VALUE")
                    self.env[name] = expand(value, before)
            elif keyword == "USER":
                self.user = expand(rest, self.vars())
            elif keyword == "WORKDIR":
                self.workdir = os.path.join(self.workdir, expand(rest, self.vars()))
                os.makedirs(self.chroot_path(self.workdir), exist_ok=True)
            elif keyword == "COPY":
                self.copy(line, [expand(w, self.vars()) for w in shlex.split(rest)])
            elif keyword == "RUN":
                if rest.startswith("["):
                    raise DockerfileError(f"line {line}: RUN in exec form is not supported")
                self.run(line, rest)  # the shell expands it, with ARG and ENV in its environment
            elif keyword == "EXPOSE":
                pass
            elif keyword == "CMD":
                self.cmd = json.loads(rest)
            else:
                raise DockerfileError(f"line {line}: {keyword} is not supported here")
        uid, gid = self.passwd(self.user)
        image = {"env": {"PATH": DEFAULT_PATH, **self.trust, **self.env}, "uid": uid, "gid": gid, "workdir": self.workdir, "cmd": self.cmd}
        with open(self.chroot_path("/.dockerfile.json"), "w") as f:
            json.dump(image, f, indent=1)


def run_image(b, extra, binds):
    """Runs the image's CMD with extra (see the module's doc), as docker run would; returns its
    exit status."""
    image = json.load(open(b.chroot_path("/.dockerfile.json")))
    command = list(image["cmd"])
    for arg in extra:  # --NAME=VALUE replaces the CMD's --NAME=... (Jupyter refuses a flag twice)
        name = arg.split("=", 1)[0] + "=" if arg.startswith("--") and "=" in arg else None
        same = [i for i, c in enumerate(command) if name and c.startswith(name)]
        if same:
            command[same[0]] = arg
        else:
            command.append(arg)
    b.mount(binds)
    script = 'cd "$1" && shift && exec "$@"'
    child = subprocess.Popen(["chroot", f"--userspec={image['uid']}:{image['gid']}", b.root, "/bin/sh", "-c", script,
                              "sh", image["workdir"], *command], env=image["env"])
    return child.wait()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    pb = sub.add_parser("build", help="replays DOCKERFILE's steps in --root")
    pb.add_argument("--root", required=True, help="the folder holding the FROM image's root file system")
    pb.add_argument("--base", required=True, help="the FROM image that root holds")
    pb.add_argument("--context", default=".", help="the build context (a git work tree)")
    pb.add_argument("--build-arg", action="append", default=[], metavar="NAME=VALUE")
    pb.add_argument("--trust", help="a CA bundle the machine's network needs, given to RUN steps")
    pb.add_argument("dockerfile")
    pr = sub.add_parser("run", help="runs the CMD of the image built in --root, ARGs appended")
    pr.add_argument("--root", required=True)
    pr.add_argument("--mount", action="append", default=[], metavar="SRC:DST[:ro]")
    pr.add_argument("arg", nargs="*")
    args = p.parse_args()
    # Terminated (the test stopping the server), unmount before going.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    b = Build(args)
    try:
        if args.verb == "build":
            b.build(args.dockerfile)
            return 0
        binds = []
        for m in args.mount:
            src, dst, *ro = m.split(":")
            binds.append((os.path.abspath(src), dst, ro == ["ro"]))
        return run_image(b, args.arg, binds)
    except DockerfileError as e:
        print(f"[dockerfile] error: {e}", file=sys.stderr)
        return 1
    finally:
        b.unmount()


if __name__ == "__main__":
    sys.exit(main())
