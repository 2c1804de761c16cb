/* verify's class lookup by name among the loaded classes (loaded_class.h),
 * on a fake JVMTI and JNI: the one class of a name is found (an array class
 * by its descriptor), none when it is not loaded or not prepared, none when
 * two loaders each hold one; every other reference it was handed is
 * deleted, and every JVMTI buffer given back. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "verify/loaded_class.h"

#define CLASSES 5
static const char *signatures[CLASSES];
static jint statuses[CLASSES];
static int refs, buffers;   /* live local references and JVMTI buffers */

#define CLASS(i) ((jclass)(uintptr_t)(0x100 + (i)))
static int index_of(jclass k) { return (int)((uintptr_t)k - 0x100); }

static jvmtiError JNICALL loaded(jvmtiEnv *j, jint *n, jclass **out)
{
  (void)j;
  *out = malloc(CLASSES * sizeof **out);
  buffers++;
  for (int i = 0; i < CLASSES; i++)
    (*out)[i] = CLASS(i);
  *n = CLASSES;
  refs += CLASSES;
  return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL signature(jvmtiEnv *j, jclass k, char **sig, char **generic)
{
  (void)j;
  (void)generic;
  *sig = strdup(signatures[index_of(k)]);
  buffers++;
  return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL status(jvmtiEnv *j, jclass k, jint *out)
{
  (void)j;
  *out = statuses[index_of(k)];
  return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL deallocate(jvmtiEnv *j, unsigned char *p)
{
  (void)j;
  free(p);
  buffers--;
  return JVMTI_ERROR_NONE;
}

static void JNICALL delete_ref(JNIEnv *env, jobject o)
{
  (void)env;
  (void)o;
  refs--;
}

static jint JNICALL ensure(JNIEnv *env, jint n)
{
  (void)env;
  (void)n;
  return 0;
}

static struct jvmtiInterface_1_ jvmti_fns;
static const struct jvmtiInterface_1_ *jvmti_table = &jvmti_fns;
static struct JNINativeInterface_ jni_fns;
static const struct JNINativeInterface_ *jni_table = &jni_fns;

static int setup(void **state)
{
  (void)state;
  jvmti_fns.GetLoadedClasses = loaded;
  jvmti_fns.GetClassSignature = signature;
  jvmti_fns.GetClassStatus = status;
  jvmti_fns.Deallocate = deallocate;
  jni_fns.DeleteLocalRef = delete_ref;
  jni_fns.EnsureLocalCapacity = ensure;
  static const char *sigs[CLASSES] = {"Ljava/lang/Object;", "Ljava/lang/String;", "[I", "LApp;", "Ljava/lang/StringBuilder;"};
  memcpy(signatures, sigs, sizeof sigs);
  for (int i = 0; i < CLASSES; i++)
    statuses[i] = JVMTI_CLASS_STATUS_VERIFIED | JVMTI_CLASS_STATUS_PREPARED;
  statuses[2] = JVMTI_CLASS_STATUS_ARRAY;   /* what HotSpot says of an array class */
  refs = buffers = 0;
  return 0;
}

/* The class, and only its reference left. */
static jclass find(const char *name)
{
  jclass k = fg_loaded_class((jvmtiEnv *)&jvmti_table, (JNIEnv *)&jni_table, name);
  assert_int_equal(refs, k ? 1 : 0);
  assert_int_equal(buffers, 0);
  refs = 0;
  return k;
}

static void the_one_class_of_a_name_is_found(void **state)
{
  (void)state;
  assert_ptr_equal(find("java/lang/String"), CLASS(1));
  assert_ptr_equal(find("java/lang/StringBuilder"), CLASS(4));   /* not taken for String's prefix */
  assert_ptr_equal(find("App"), CLASS(3));
  assert_ptr_equal(find("[I"), CLASS(2));
  assert_null(find("java/lang/Str"));
  assert_null(find("java/util/List"));                           /* not loaded: nothing is loaded for it */
  assert_null(find(""));
}

static void a_class_not_prepared_or_in_two_loaders_is_none(void **state)
{
  (void)state;
  statuses[3] = JVMTI_CLASS_STATUS_VERIFIED;                     /* loaded, its methods not listable yet */
  assert_null(find("App"));
  statuses[3] |= JVMTI_CLASS_STATUS_PREPARED;
  signatures[0] = "LApp;";                                       /* another loader's App */
  assert_null(find("App"));
  assert_ptr_equal(find("java/lang/String"), CLASS(1));
}

static void signatures_name_their_classes(void **state)
{
  (void)state;
  assert_true(fg_signature_names("Ljava/lang/String;", "java/lang/String"));
  assert_false(fg_signature_names("Ljava/lang/String;x", "java/lang/String"));
  assert_false(fg_signature_names("java/lang/String", "java/lang/String"));
  assert_true(fg_signature_names("[Ljava/lang/String;", "[Ljava/lang/String;"));
  assert_false(fg_signature_names("[I", "I"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(the_one_class_of_a_name_is_found, setup),
    cmocka_unit_test_setup(a_class_not_prepared_or_in_two_loaders_is_none, setup),
    cmocka_unit_test_setup(signatures_name_their_classes, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
