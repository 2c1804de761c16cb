/* What the lock event counts: waits for a lock a thread owns once it has it
 * (monitors, ReentrantLock, ReentrantReadWriteLock, Semaphore), never waits
 * for an event (a CountDownLatch, a Condition's await, a pool's idle worker,
 * a FutureTask). A monitor is always owned; a park is judged by its blocker's
 * class. Pure: the agent's Unsafe.park hook and fgprof convert's reading of a
 * JDK recording's jdk.ThreadPark apply the same rule. */
#ifndef FG_LOCK_KINDS_H
#define FG_LOCK_KINDS_H

#include <stdbool.h>

/* Whether a thread parked with a blocker of this class (Thread.parkBlocker;
 * jdk.ThreadPark's parkedClass) waits for an owned lock: the JDK parks the
 * waiters of ReentrantLock, ReentrantReadWriteLock and Semaphore on their
 * nested Sync classes (ReentrantLock$NonfairSync, $FairSync, ...). The name
 * as a JVM signature ("Ljava/util/concurrent/Semaphore$FairSync;"), as JFR
 * writes it ("java/util/concurrent/...") or as Java does ("java.util...");
 * NULL or anything else: false. */
bool fg_lock_owned_blocker(const char *class_name);

#endif
