import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.codehaus.janino.SimpleCompiler;

/**
 * Compiles a Java source file with Janino's SimpleCompiler, as olsdk._integrations.spark._bridge does
 * in the driver JVM (cook the whole compilation unit, parent class loader: the context
 * class loader, which holds Spark's jars), then loads the named class.
 *
 * Run with Java's single-file launcher: java -cp "pyspark/jars/*" JaninoCook.java FILE CLASS.
 * Exit status 0 and "compiled CLASS" on success; a compile error is printed with its
 * line and column and the status is 1.
 */
public class JaninoCook {
    public static void main(String[] args) throws Exception {
        String text = new String(Files.readAllBytes(Path.of(args[0])), StandardCharsets.UTF_8);
        SimpleCompiler compiler = new SimpleCompiler();
        compiler.setParentClassLoader(Thread.currentThread().getContextClassLoader());
        try {
            compiler.cook(args[0], new java.io.StringReader(text));
        } catch (org.codehaus.commons.compiler.CompileException error) {
            System.out.println("compile error: " + error.getMessage());
            System.exit(1);
        }
        Class<?> cls = compiler.getClassLoader().loadClass(args[1]);
        System.out.println("compiled " + cls.getName());
    }
}
