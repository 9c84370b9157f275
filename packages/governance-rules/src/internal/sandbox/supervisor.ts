/**
 * The supervisor of a persistent sandbox: a small Perl program (Perl is part of every Debian base
 * system; a host without it runs each command in its own bubblewrap), bubblewrap's only child and
 * PID 1 of the sandbox, that starts each command Steward sends it. It keeps `CAP_SYS_ADMIN` and
 * `CAP_SETPCAP` (nothing else) so that every command gets, as per-command bubblewrap gave it:
 *
 * - its own PID namespace: the supervisor forks with `clone(CLONE_NEWPID)`; that child is the
 *   namespace's init (a reaper, the command being its child, PID 2, as under bubblewrap's init);
 *   when the command ends or the init is killed, the init exits and the kernel kills everything
 *   left (setsid, nohup, double forks); the command cannot name — so cannot signal — the
 *   supervisor;
 * - its own session and process group, no capability at all and `no_new_privs`, before its own
 *   program runs; holding capabilities the commands lack also keeps them from ptracing the
 *   supervisor or opening its descriptors through `/proc/1/fd` (the kernel's ptrace check);
 * - the environment and directory Steward names; stdin from a file, stdout and stderr into FIFOs
 *   that Steward reads (in a directory bound read-only, so a command cannot replace them).
 *
 * The next command's init is made ahead, while the sandbox is idle (`prepare ID`, answered
 * `prepared ID FD`): Steward puts the supervisor in that command's control groups just for the
 * fork. A command is then a file of NUL-separated fields (`cwd stdin envc env… argv…`) and `go`
 * written by Steward into the init's pipe (through the supervisor's descriptor FD), answered
 * `exited ID STATUS` (128 + the signal when one ended it) once the init is gone. One command at a time. The system calls are made by number (Perl's core has no
 * binding for them): x86-64 and arm64 only.
 *
 * @internal
 */

/** Where the I/O directory appears inside the sandbox. @internal */
export const IO_DIR = "/run/steward/io"

// clone, prctl, capset
const SYSCALLS: Partial<Record<NodeJS.Architecture, readonly [number, number, number]>> = {
  x64: [56, 157, 126],
  arm64: [220, 167, 91]
}

/** Whether the supervisor knows this architecture's system call numbers. @internal */
export const supported = (): boolean => SYSCALLS[process.arch] !== undefined

const SCRIPT = String.raw`
use strict; use POSIX ();
my ($CLONE, $PRCTL, $CAPSET, $IO) = @ARGV;
my $status = sub { my $s = shift; ($s & 127) ? 128 + ($s & 127) : $s >> 8 };
my $fail = sub { print STDERR "steward sandbox: $_[0]\n"; POSIX::_exit($_[1]) };
# nothing the host or bubblewrap left open reaches a command (its status descriptor, say)
POSIX::close($_) for 3 .. 1023;
$| = 1;
# The next command's init, made ahead (in the control groups Steward put the supervisor in).
my $init = sub {
  my ($wait) = @_;
  my $line = <$wait>;
  POSIX::_exit(0) unless defined $line && $line eq "go\n";
  open(my $fh, "<", "$IO/request") or POSIX::_exit(126);
  my $raw = do { local $/; <$fh> };
  close $fh;
  my @f = split /\x00/, $raw, -1;
  pop @f;
  my ($cwd, $input, $n) = @f[0 .. 2];
  my @env = @f[3 .. 2 + $n];
  my @argv = @f[3 + $n .. $#f];
  open(STDIN, "<", $input) or POSIX::_exit(126);
  open(STDOUT, ">", "$IO/out") or POSIX::_exit(126);
  open(STDERR, ">", "$IO/err") or POSIX::_exit(126);
  my $command = fork();
  defined $command or $fail->("fork: $!", 126);
  if ($command == 0) {
    POSIX::setsid();
    chdir($cwd) or $fail->("cannot enter $cwd: $!", 126);
    %ENV = ();
    for (@env) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
    for my $cap (0 .. 63) { syscall($PRCTL, 24, $cap, 0, 0, 0) }
    syscall($PRCTL, 47, 4, 0, 0, 0);
    my ($header, $data) = (pack("LL", 0x20080522, 0), pack("L6", 0, 0, 0, 0, 0, 0));
    syscall($CAPSET, $header, $data) == 0 or $fail->("capset: $!", 126);
    syscall($PRCTL, 38, 1, 0, 0, 0) == 0 or $fail->("no_new_privs: $!", 126);
    { no warnings; exec { $argv[0] } @argv; }
    $fail->("$argv[0]: $!", $!{ENOENT} ? 127 : 126);
  }
  while ((my $gone = waitpid(-1, 0)) > 0) { POSIX::_exit($status->($?)) if $gone == $command }
  POSIX::_exit(126);
};
print "ready\n";
while (defined(my $line = <STDIN>)) {
  my ($verb, $id) = split / /, $line;
  chomp $id;
  if ($verb eq "prepare") {
    pipe(my $wait, my $signal) or exit 0;
    # clone(CLONE_NEWPID | SIGCHLD), a fork whose child is PID 1 of a new PID namespace
    my $pid = syscall($CLONE, 0x20000000 | 17, 0, 0, 0, 0);
    if ($pid == 0) { close $signal; $init->($wait) }
    close $wait;
    if ($pid < 0) { print "prepared $id failed\n"; next }
    # Steward says go itself, through this pipe's end (its /proc/1/fd entry): no hop through here
    print "prepared $id " . fileno($signal) . "\n";
    waitpid($pid, 0);
    close $signal;
    print "exited $id " . $status->($?) . "\n";
  }
}
`

/** The argv that runs the supervisor (inside the sandbox). @internal */
export const argv = (perl: string): ReadonlyArray<string> => [
  perl,
  "-e",
  SCRIPT,
  ...(SYSCALLS[process.arch] ?? []).map(String),
  IO_DIR
]

/**
 * One request: its fields, NUL-separated, go to the `request` file of the I/O directory (bash reads
 * a regular file in blocks with one `mapfile`, a pipe one byte per call); then its id, on a line, to
 * the supervisor's stdin. @internal
 */
export const encode = (request: {
  readonly cwd: string
  readonly stdin: string
  readonly env: Readonly<Record<string, string>>
  readonly argv: ReadonlyArray<string>
}): Buffer => {
  const env = Object.entries(request.env).map(([name, value]) => `${name}=${value}`)
  const fields = [request.cwd, request.stdin, String(env.length), ...env, ...request.argv]
  return Buffer.from(fields.map((field) => `${field}\0`).join(""), "utf8")
}

/** A field the supervisor cannot carry (a NUL byte ends a field). @internal */
export const carriable = (values: ReadonlyArray<string>): boolean => values.every((value) => !value.includes("\0"))
