/*
 * forked_child.h - what a unit test's forked child (a fake server, a worker)
 * calls first, so that it never outlives the test nor keeps the runner
 * waiting: it dies with its parent (PR_SET_PDEATHSIG, checked against a
 * parent that died before the call), holds none of the test's output open
 * (stdout and stderr go to /dev/null, so a runner reading a pipe sees its
 * end), and ends itself after a deadline as a last resort (alarm).
 */
#ifndef TS_UNIT_FORKED_CHILD_H
#define TS_UNIT_FORKED_CHILD_H

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/* No forked helper of a unit test lives longer than this, in seconds. */
#define UNIT_CHILD_MAX_SECONDS 120

/*
 * parent: the forking process's pid (getpid() before fork()).
 * keep_output: true for a child whose stderr tells why it failed (a worker
 * that exits); a server that only answers sockets passes false.
 */
static inline void
unit_forked_child(pid_t parent, int keep_output)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (!keep_output)
	{
		int			devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
		{
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
			if (devnull > STDERR_FILENO)
				close(devnull);
		}
	}
	alarm(UNIT_CHILD_MAX_SECONDS);
}

#endif
