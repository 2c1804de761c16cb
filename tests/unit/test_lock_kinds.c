/* Which parked blockers are owned locks: the rule the agent's park hook and
 * fgprof convert's jdk.ThreadPark reading share. */
#include "unit.h"

#include "fg/lock_kinds.h"

static void owned_locks_in_every_spelling(void **state)
{
  (void)state;
  static const char *const owned[] = {
    "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;",           /* JVMTI's signature */
    "Ljava/util/concurrent/locks/ReentrantLock$FairSync;",
    "java/util/concurrent/locks/ReentrantReadWriteLock$NonfairSync",    /* JFR's name */
    "java/util/concurrent/locks/ReentrantReadWriteLock$FairSync",
    "java.util.concurrent.Semaphore$NonfairSync",                       /* Java's binary name */
    "Ljava/util/concurrent/Semaphore$FairSync;",
  };
  for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
    if (!fg_lock_owned_blocker(owned[i]))
      fail_msg("'%s' is an owned lock's blocker", owned[i]);
}

static void waits_for_events_are_no_locks(void **state)
{
  (void)state;
  static const char *const events[] = {
    "Ljava/util/concurrent/CountDownLatch$Sync;",
    "java/util/concurrent/CyclicBarrier",
    "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject",
    "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionNode",
    "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject",
    "java/util/concurrent/FutureTask",
    "java/util/concurrent/ForkJoinPool",
    "java/util/concurrent/SynchronousQueue$TransferStack",
    "java/util/concurrent/locks/StampedLock",
    "java/util/concurrent/ThreadPoolExecutor$Worker",   /* an AbstractQueuedSynchronizer, but a task's state */
    "Lcom/example/MyMutex$Sync;",
    "java/util/concurrent/locks/ReentrantLock",         /* the lock itself: the JDK parks on its Sync */
    "java/util/concurrent/locks/ReentrantLock$",
    "Ljava/util/concurrent/locks/ReentrantLock;",
    "java/util/concurrent/locks/ReentrantLockX$Sync",
    "java/util/concurrent/SemaphoreX$Sync",
    "Ljava/util/concurrent/Semaphore$NonfairSync",      /* a signature without its ';' */
    "java/util/concurrent/Semaphore$NonfairSync;",      /* a name with one */
    "com/example/java/util/concurrent/Semaphore$Sync",
    "",
    "L;",
    "[Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;",
  };
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
    if (fg_lock_owned_blocker(events[i]))
      fail_msg("'%s' is no owned lock's blocker", events[i]);
  assert_false(fg_lock_owned_blocker(NULL));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(owned_locks_in_every_spelling),
    cmocka_unit_test(waits_for_events_are_no_locks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
