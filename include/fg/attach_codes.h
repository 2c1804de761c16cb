/* Return codes of fgagent's Agent_OnAttach that fgprof acts on (HotSpot
 * hands them back as "return code: N"). Shared by the agent and the CLI. */
#ifndef FG_ATTACH_CODES_H
#define FG_ATTACH_CODES_H

#define FG_ATTACH_RC_REFUSED 1    /* the command was refused; the reply says why */
#define FG_ATTACH_RC_STARTING 75  /* the JVM is still starting (no JVMTI yet): try again shortly */

#endif
