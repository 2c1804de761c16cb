/* Return codes of fgagent's Agent_OnAttach that fgprof acts on (HotSpot
 * hands them back as "return code: N"). Shared by the agent and the CLI. */
#ifndef FG_ATTACH_CODES_H
#define FG_ATTACH_CODES_H

#define FG_ATTACH_RC_REFUSED 1    /* the command was refused; the reply says why */
#define FG_ATTACH_RC_STARTING 75  /* the JVM is still starting (no JVMTI yet): try again shortly */
#define FG_ATTACH_RC_EXITING 76   /* the JVM is exiting: the command was refused; the reply says so */

/* Lines the agent adds to a reply file (reply=PATH) for fgprof alone, which
 * does not print them: FG_ATTACH_WORKING before a stop or dump writes the
 * outputs (fgprof then waits past --timeout for the answer), FG_ATTACH_RC
 * and the return code as the command ends (the answer, when the JVM exits
 * before its attach listener sends it). */
#define FG_ATTACH_WORKING "fgagent-working: "
#define FG_ATTACH_RC "fgagent-rc: "

#endif
